use burn::module::AutodiffModule;
use burn::nn::loss::{MseLoss, Reduction};
use burn::optim::{GradientsParams, Optimizer, SgdConfig};
use burn::prelude::*;
use burn::tensor::backend::AutodiffBackend;

use crate::data::Samples;
use crate::model::{Scorer, ScorerConfig};

#[derive(Config, Debug)]
pub struct FitConfig {
    pub features: usize,
    #[config(default = 48)]
    pub rows: usize,
    #[config(default = 30)]
    pub steps: usize,
    #[config(default = 0.5)]
    pub learning_rate: f64,
}

/// Fits a scorer to generated samples with plain gradient descent, printing the loss every
/// ten steps, and hands it back ready for inference.
pub fn fit<B: AutodiffBackend>(config: &FitConfig, device: B::Device) -> Scorer<B::InnerBackend> {
    let samples = Samples::<B>::generate(0, config.rows, &device);
    let mut scorer: Scorer<B> = ScorerConfig::new(config.features).init(&device);
    let mut optim = SgdConfig::new().init();
    let loss_fn = MseLoss::new();
    for step in 1..=config.steps {
        let scores = scorer.forward(samples.inputs.clone());
        let loss = loss_fn.forward(scores, samples.labels.clone(), Reduction::Mean);
        if step % 10 == 0 {
            println!("step {step:>3}  loss {:.6}", loss.clone().into_scalar().elem::<f32>());
        }
        let grads = GradientsParams::from_grads(loss.backward(), &scorer);
        scorer = optim.step(config.learning_rate, scorer, grads);
    }
    scorer.valid()
}
