use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor};

/// `count` points on an outward spiral, one per row: (r cos t, r sin t).
pub fn make_points<B: Backend>(count: usize, device: &B::Device) -> Tensor<B, 2> {
    let steps = Tensor::<B, 1, Int>::arange(0..count as i64, device).float();
    let angle = steps.clone().mul_scalar(0.8);
    let radius = steps.add_scalar(1.0).mul_scalar(0.5);
    let x = radius.clone().mul(angle.clone().cos());
    let y = radius.mul(angle.sin());
    Tensor::stack(vec![x, y], 1)
}

/// Moves the centroid of the points to the origin.
pub fn centered<B: Backend>(points: Tensor<B, 2>) -> Tensor<B, 2> {
    let mean = points.clone().mean_dim(0);
    points.sub(mean)
}

/// Squared euclidean distance between every row of `a` and every row of `b`.
pub fn pairwise_sq_distances<B: Backend>(a: Tensor<B, 2>, b: Tensor<B, 2>) -> Tensor<B, 2> {
    let a_norms = a.clone().powf_scalar(2.0).sum_dim(1);
    let b_norms = b.clone().powf_scalar(2.0).sum_dim(1).transpose();
    let cross = a.matmul(b.transpose()).mul_scalar(2.0);
    a_norms.add(b_norms).sub(cross).clamp_min(0.0)
}

/// Stacks `N` vectors of equal length as the rows of a matrix.
pub fn stack_rows<B: Backend, const N: usize>(rows: [Tensor<B, 1>; N]) -> Tensor<B, 2> {
    Tensor::stack(rows.to_vec(), 0)
}
