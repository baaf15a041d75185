use burn::tensor::{Device, IntDType};
use cnn_classifier::train;

fn main() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    train::run(&device, 4);
}
