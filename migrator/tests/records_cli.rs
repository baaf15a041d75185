//! The `records convert` command line: what it prints, writes and exits with.

use std::process::Command;

fn burn_migrate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(args)
        .output()
        .expect("burn-migrate runs")
}

/// A one-parameter named MessagePack record, as `NamedMpkFileRecorder` writes it.
fn record() -> Vec<u8> {
    let mut out = vec![0x82];
    let text = |out: &mut Vec<u8>, s: &str| {
        out.push(0xa0 | s.len() as u8);
        out.extend_from_slice(s.as_bytes());
    };
    text(&mut out, "metadata");
    out.push(0x80);
    text(&mut out, "item");
    out.push(0x81);
    text(&mut out, "weight");
    out.push(0x82);
    text(&mut out, "id");
    text(&mut out, "83h0200000000");
    text(&mut out, "param");
    out.push(0x83);
    text(&mut out, "bytes");
    out.extend_from_slice(&[0xc4, 8]);
    out.extend_from_slice(&[0, 0, 128, 63, 0, 0, 0, 64]); // [1.0f32, 2.0]
    text(&mut out, "shape");
    out.extend_from_slice(&[0x91, 2]);
    text(&mut out, "dtype");
    text(&mut out, "F32");
    out
}

#[test]
fn convert_writes_the_burnpack_beside_the_record_and_says_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("model.mpk");
    std::fs::write(&input, record()).unwrap();
    let output = burn_migrate(&["records", "convert", input.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("1 tensor(s) (1 F32), 8 bytes of data"),
        "{stderr}"
    );
    let written = std::fs::read(dir.path().join("model.bpk")).unwrap();
    assert_eq!(&written[..4], b"NRUB");
    assert_eq!(&written[written.len() - 8..], &[0, 0, 128, 63, 0, 0, 0, 64]);
}

#[test]
fn a_broken_record_exits_2_with_the_place_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("model.mpk");
    let mut bytes = record();
    bytes.truncate(bytes.len() - 20);
    std::fs::write(&input, bytes).unwrap();
    let output = burn_migrate(&["records", "convert", input.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is truncated"), "{stderr}");
    assert!(stderr.contains("(in `weight.param."), "{stderr}");
    assert!(!dir.path().join("model.bpk").exists());
}
