use burn::nn::loss::{MseLoss, Reduction};
use burn::optim::{GradientsParams, SgdConfig};
use burn::prelude::*;

use crate::data::RegressionData;
use crate::model::MlpConfig;

#[derive(Config, Debug)]
pub struct TrainingConfig {
    pub model: MlpConfig,
    #[config(default = 40)]
    pub rows: usize,
    #[config(default = 25)]
    pub steps: usize,
    #[config(default = 0.05)]
    pub learning_rate: f64,
}

pub fn run(config: &TrainingConfig, device: Device) {
    let device = device.autodiff();
    device.seed(17);
    let data = RegressionData::generate(config.rows, config.model.inputs, &device);
    let mut model = config.model.init(&device);
    let mut optim = SgdConfig::new().init();
    let loss_fn = MseLoss::new();

    println!("training on {} rows", data.len());
    for step in 1..=config.steps {
        let predictions = model.forward(data.inputs.clone());
        let loss = loss_fn.forward(predictions, data.targets.clone(), Reduction::Mean);
        if step % 5 == 0 || step == 1 {
            println!("step {step:>3}  loss {:.6}", loss.clone().into_scalar::<f32>());
        }
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(config.learning_rate, model, grads);
    }

    let probe = data.inputs.clone().slice([0..4]);
    let predictions = model.forward(probe).into_data();
    for (row, value) in predictions.iter::<f32>().enumerate() {
        println!("prediction {row}: {value:.5}");
    }
}
