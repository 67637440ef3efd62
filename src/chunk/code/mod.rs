//! Code chunker (tree-sitter symbols).
