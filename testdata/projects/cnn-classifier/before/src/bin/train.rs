use burn::backend::{Autodiff, NdArray};
use cnn_classifier::train;

fn main() {
    let device = Default::default();
    train::run::<Autodiff<NdArray>>(&device, 4);
}
