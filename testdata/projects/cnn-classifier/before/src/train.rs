use burn::data::dataloader::batcher::Batcher;
use burn::module::AutodiffModule;
use burn::optim::{AdamConfig, GradientsParams, Optimizer};
use burn::prelude::*;
use burn::tensor::backend::AutodiffBackend;

use crate::data::{synthetic_images, BarBatch, BarBatcher};
use crate::model::BarNetConfig;

pub fn run<B: AutodiffBackend>(device: &B::Device, epochs: usize) {
    let mut model = BarNetConfig::new(4, 3).init::<B>(device);
    let mut optim = AdamConfig::new().init();
    let batcher = BarBatcher;
    let train_items = synthetic_images(36);

    for epoch in 1..=epochs {
        let mut loss_sum = 0.0;
        let mut correct = 0;
        for chunk in train_items.chunks(12) {
            let batch: BarBatch<B> = batcher.batch(chunk.to_vec(), device);
            let output = model.step(&batch);
            loss_sum += output.loss.clone().into_scalar().elem::<f32>();
            correct += output.correct;
            let grads = GradientsParams::from_grads(output.loss.backward(), &model);
            model = optim.step(2e-2, model, grads);
        }
        println!(
            "epoch {epoch}: loss {:.5} accuracy {}/{}",
            loss_sum / 3.0,
            correct,
            train_items.len()
        );
    }

    let valid_model = model.valid();
    let test_batch: BarBatch<B::InnerBackend> = batcher.batch(synthetic_images(9), device);
    let output = valid_model.step(&test_batch);
    println!("test loss {:.5} accuracy {}/9", output.loss.into_scalar().elem::<f32>(), output.correct);
    let logits = valid_model.forward(test_batch.images.slice([0..1]));
    let values: Vec<String> = logits.into_data().iter::<f32>().map(|v| format!("{v:.4}")).collect();
    println!("logits of the first test image: {}", values.join(" "));
}
