//! Trains the classifier on the CPU and prints the loss curve.

use burn::nn::loss::CrossEntropyLossConfig;
use burn::optim::{GradientsParams, SgdConfig};
use burn::prelude::*;
use burn::tensor::IntDType;
use model::{samples, ClassifierConfig};

fn main() {
    let mut device = Device::flex().autodiff();
    let _ = device.configure(IntDType::I64);
    let (inputs, labels) = samples(24, &device);
    let mut classifier = ClassifierConfig::new(3, 3).init(&device);
    let mut optim = SgdConfig::new().init();
    let loss_fn = CrossEntropyLossConfig::new().init(&device);
    for step in 0..20 {
        let loss = loss_fn.forward(classifier.forward(inputs.clone()), labels.clone());
        if step % 5 == 0 {
            println!("step {step:>2}  loss {:.5}", loss.clone().into_scalar::<f32>());
        }
        let grads = GradientsParams::from_grads(loss.backward(), &classifier);
        classifier = optim.step(0.5, classifier, grads);
    }
}
