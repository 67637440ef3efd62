//! Markdown chunker.
