use burn::nn::loss::BinaryCrossEntropyLossConfig;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;

use crate::data::Split;
use crate::model::{Scorer, ScorerConfig};

#[derive(Config, Debug)]
pub struct LoopConfig {
    pub epochs: usize,
    pub batch_size: usize,
    #[config(default = 0.05)]
    pub learning_rate: f64,
}

/// Loss and accuracy of a model on a split, without tracking gradients.
fn evaluate(model: &Scorer, split: &Split) -> (f32, f32) {
    let logits = model.forward(split.inputs.clone());
    let loss = BinaryCrossEntropyLossConfig::new()
        .with_logits(true)
        .init(&logits.device())
        .forward(logits.clone(), split.labels.clone());
    let predicted = logits.greater_elem(0.0).int();
    let correct = predicted.equal(split.labels.clone()).int().sum().into_scalar::<i64>();
    (loss.into_scalar::<f32>(), correct as f32 / split.rows() as f32)
}

pub fn run(config: &LoopConfig, device: Device) {
    let device = device.autodiff();
    device.seed(5);
    let mut model: Scorer = ScorerConfig::new(4, 6).init(&device);
    let mut optim = AdamConfig::new().init();
    let loss_fn = BinaryCrossEntropyLossConfig::new().with_logits(true).init(&device);

    let train = Split::generate(0, 32, &device);
    let valid = Split::generate(100, 16, &device.clone().inner());
    let batches = train.rows() / config.batch_size;

    for epoch in 1..=config.epochs {
        let mut epoch_loss = 0.0;
        for index in 0..batches {
            let batch = train.batch(index, config.batch_size);
            let logits = model.forward(batch.inputs);
            let loss = loss_fn.forward(logits, batch.labels);
            epoch_loss += loss.clone().into_scalar::<f32>();
            let grads = loss.backward();
            let grads = GradientsParams::from_grads(grads, &model);
            model = optim.step(config.learning_rate, model, grads);
        }
        let (valid_loss, valid_accuracy) = evaluate(&model.valid(), &valid);
        println!(
            "epoch {epoch}: train loss {:.5}, valid loss {valid_loss:.5}, valid accuracy {valid_accuracy:.3}",
            epoch_loss / batches as f32
        );
    }
}
