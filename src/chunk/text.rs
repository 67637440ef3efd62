//! Plain-text and JSON chunkers.
