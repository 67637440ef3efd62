//! The one token estimator used everywhere.

/// Estimated number of LLM tokens in `text`.
pub fn estimate(text: &str) -> usize {
    text.len().div_ceil(4)
}
