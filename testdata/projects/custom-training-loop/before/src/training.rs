use burn::module::AutodiffModule;
use burn::nn::loss::BinaryCrossEntropyLossConfig;
use burn::optim::{AdamConfig, GradientsParams, Optimizer};
use burn::prelude::*;
use burn::tensor::backend::AutodiffBackend;

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
fn evaluate<B: Backend>(model: &Scorer<B>, split: &Split<B>) -> (f32, f32) {
    let logits = model.forward(split.inputs.clone());
    let loss = BinaryCrossEntropyLossConfig::new()
        .with_logits(true)
        .init(&logits.device())
        .forward(logits.clone(), split.labels.clone());
    let predicted = logits.greater_elem(0.0).int();
    let correct = predicted.equal(split.labels.clone()).int().sum().into_scalar().elem::<i64>();
    (loss.into_scalar().elem::<f32>(), correct as f32 / split.rows() as f32)
}

pub fn run<B: AutodiffBackend>(config: &LoopConfig, device: B::Device) {
    B::seed(&device, 5);
    let mut model: Scorer<B> = ScorerConfig::new(4, 6).init(&device);
    let mut optim = AdamConfig::new().init::<B, Scorer<B>>();
    let loss_fn = BinaryCrossEntropyLossConfig::new().with_logits(true).init(&device);

    let train = Split::<B>::generate(0, 32, &device);
    let valid = Split::<B::InnerBackend>::generate(100, 16, &device);
    let batches = train.rows() / config.batch_size;

    for epoch in 1..=config.epochs {
        let mut epoch_loss = 0.0;
        for index in 0..batches {
            let batch = train.batch(index, config.batch_size);
            let logits = model.forward(batch.inputs);
            let loss = loss_fn.forward(logits, batch.labels);
            epoch_loss += loss.clone().into_scalar().elem::<f32>();
            let grads = loss.backward();
            let grads = GradientsParams::from_grads(grads, &model);
            model = optim.step(config.learning_rate, model, grads);
        }
        let (valid_loss, valid_accuracy) = evaluate::<B::InnerBackend>(&model.valid(), &valid);
        println!(
            "epoch {epoch}: train loss {:.5}, valid loss {valid_loss:.5}, valid accuracy {valid_accuracy:.3}",
            epoch_loss / batches as f32
        );
    }
}
