use burn::data::dataloader::batcher::Batcher;
use burn::prelude::*;

pub const SIDE: usize = 8;

/// One grayscale image with a bar drawn in it: 0 horizontal, 1 vertical, 2 diagonal.
#[derive(Clone, Debug)]
pub struct BarImage {
    pub pixels: [[f32; SIDE]; SIDE],
    pub label: usize,
}

impl BarImage {
    pub fn draw(label: usize, offset: usize) -> Self {
        let mut pixels = [[0.05; SIDE]; SIDE];
        for i in 0..SIDE {
            let (row, col) = match label {
                0 => (offset, i),
                1 => (i, offset),
                _ => (i, (i + offset) % SIDE),
            };
            pixels[row][col] = 1.0;
        }
        Self { pixels, label }
    }
}

/// `count` images cycling through the three classes and six bar positions.
pub fn synthetic_images(count: usize) -> Vec<BarImage> {
    (0..count).map(|i| BarImage::draw(i % 3, 1 + (i / 3) % 6)).collect()
}

#[derive(Clone, Debug)]
pub struct BarBatch<B: Backend> {
    pub images: Tensor<B, 4>,
    pub targets: Tensor<B, 1, Int>,
}

#[derive(Clone, Debug, Default)]
pub struct BarBatcher;

impl<B: Backend> Batcher<B, BarImage, BarBatch<B>> for BarBatcher {
    fn batch(&self, items: Vec<BarImage>, device: &B::Device) -> BarBatch<B> {
        let images = items
            .iter()
            .map(|item| TensorData::new(item.pixels.as_flattened().to_vec(), [1, 1, SIDE, SIDE]))
            .map(|data| Tensor::<B, 4>::from_data(data, device))
            .collect();
        let labels: Vec<i64> = items.iter().map(|item| item.label as i64).collect();
        let count = labels.len();
        BarBatch {
            images: Tensor::cat(images, 0),
            targets: Tensor::from_data(TensorData::new(labels, [count]), device),
        }
    }
}
