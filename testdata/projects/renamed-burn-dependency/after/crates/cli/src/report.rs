use ::nn::prelude::*;
use scorer::data::Samples;
use scorer::model::Scorer;

/// Prints each row's score and how many rows the scorer gets right at the 0.5 cut.
pub fn print_scores(scorer: &Scorer, samples: &Samples) {
    let scores = scorer.forward(samples.inputs.clone());
    let predicted = scores.clone().greater_elem(0.5).int();
    let expected = samples.labels.clone().greater_elem(0.5).int();
    let right = predicted.equal(expected).int().sum().into_scalar::<i64>();
    for (row, score) in scores.into_data().iter::<f32>().enumerate() {
        println!("row {row}: score {score:.4}");
    }
    println!("{right} of {} rows right", samples.rows());
}

#[cfg(test)]
mod tests {
    use ::nn::tensor::IntDType;
    use super::*;
    use scorer::model::ScorerConfig;

    #[test]
    fn scores_are_probabilities() {
        let mut device = Device::flex();
        let _ = device.configure(IntDType::I64);
        let scorer = ScorerConfig::new(4).init(&device);
        let samples = Samples::generate(0, 6, &device);
        let scores = scorer.forward(samples.inputs.clone()).into_data();
        assert!(scores.iter::<f32>().all(|s| (0.0..=1.0).contains(&s)));
    }
}
