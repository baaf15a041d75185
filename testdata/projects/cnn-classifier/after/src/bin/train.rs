use burn::tensor::Device;
use cnn_classifier::train;

fn main() {
    let device = Device::flex();
    train::run(&device, 4);
}
