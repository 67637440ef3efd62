//! A BERT encoder's forward pass on the CPU (post-norm layers, GELU, mean
//! pooling): what sentence-transformers computes for models such as
//! all-MiniLM-L6-v2, from their `model.safetensors` and `config.json`.

use std::path::Path;

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, ShapeBuilder};
use safetensors::{Dtype, SafeTensors};
use serde::Deserialize;

use crate::error::{Error, Result};

/// `config.json`, the fields the forward pass needs.
#[derive(Deserialize)]
pub struct Config {
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "default_eps")]
    layer_norm_eps: f32,
}

impl Config {
    /// Longest input the position table allows.
    pub fn max_tokens(&self) -> usize {
        self.max_position_embeddings
    }
}

fn default_eps() -> f32 {
    1e-12
}

/// `y = x · Wᵀ + b`, with `W` as stored: `out` rows of `inp` weights.
struct Linear {
    w: Vec<f32>,
    b: Vec<f32>,
    inp: usize,
    out: usize,
}

struct Norm {
    g: Vec<f32>,
    b: Vec<f32>,
}

struct Layer {
    /// Query, key and value projections stacked into one (`3 × hidden` rows).
    qkv: Linear,
    attn_out: Linear,
    attn_norm: Norm,
    up: Linear,
    down: Linear,
    out_norm: Norm,
}

/// The weights of a BERT encoder.
pub struct Bert {
    words: Vec<f32>,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    emb_norm: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    eps: f32,
    /// Longest input the position table allows.
    pub max_tokens: usize,
}

impl Bert {
    /// Reads and checks `config.json` in `dir`, without the weights.
    pub fn config(dir: &Path) -> Result<Config> {
        let config_path = dir.join("config.json");
        let text = std::fs::read_to_string(&config_path)
            .map_err(|e| Error::io("cannot read", &config_path, e))?;
        let c: Config = serde_json::from_str(&text).map_err(|e| {
            Error::Invalid(format!("{}: not a BERT config: {e}", config_path.display()))
        })?;
        let h = c.hidden_size;
        if c.num_attention_heads == 0 || !h.is_multiple_of(c.num_attention_heads) {
            return Err(Error::Invalid(format!(
                "{}: hidden size {h} is not a multiple of {} heads",
                config_path.display(),
                c.num_attention_heads
            )));
        }
        Ok(c)
    }

    /// Loads the weights in `dir`'s `model.safetensors` for config `c`.
    pub fn load(dir: &Path, c: &Config) -> Result<Bert> {
        let h = c.hidden_size;
        let path = dir.join("model.safetensors");
        let bytes = std::fs::read(&path).map_err(|e| Error::io("cannot read", &path, e))?;
        let st = SafeTensors::deserialize(&bytes)
            .map_err(|e| {
                Error::Invalid(format!(
                    "{}: not a safetensors file ({e}); the download may be damaged: fetch the model again",
                    path.display()
                ))
            })?;
        let t = Tensors {
            st: &st,
            path: &path,
        };
        let linear = |p: &str, inp: usize, out: usize| -> Result<Linear> {
            Ok(Linear {
                w: t.get(&format!("{p}.weight"), out * inp)?,
                b: t.get(&format!("{p}.bias"), out)?,
                inp,
                out,
            })
        };
        let norm = |p: &str| -> Result<Norm> {
            Ok(Norm {
                g: t.get(&format!("{p}.weight"), h)?,
                b: t.get(&format!("{p}.bias"), h)?,
            })
        };
        let mut layers = Vec::with_capacity(c.num_hidden_layers);
        for i in 0..c.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let (q, k, v) = (
                linear(&format!("{p}.attention.self.query"), h, h)?,
                linear(&format!("{p}.attention.self.key"), h, h)?,
                linear(&format!("{p}.attention.self.value"), h, h)?,
            );
            layers.push(Layer {
                qkv: Linear {
                    w: [q.w, k.w, v.w].concat(),
                    b: [q.b, k.b, v.b].concat(),
                    inp: h,
                    out: 3 * h,
                },
                attn_out: linear(&format!("{p}.attention.output.dense"), h, h)?,
                attn_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                up: linear(&format!("{p}.intermediate.dense"), h, c.intermediate_size)?,
                down: linear(&format!("{p}.output.dense"), c.intermediate_size, h)?,
                out_norm: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        let words = t.get_rows("embeddings.word_embeddings.weight", h)?;
        Ok(Bert {
            words,
            positions: t.get(
                "embeddings.position_embeddings.weight",
                c.max_position_embeddings * h,
            )?,
            token_type: t.get_rows("embeddings.token_type_embeddings.weight", h)?,
            emb_norm: norm("embeddings.LayerNorm")?,
            layers,
            hidden: h,
            heads: c.num_attention_heads,
            eps: c.layer_norm_eps,
            max_tokens: c.max_position_embeddings,
        })
    }

    /// The unit-length mean of the last layer's token vectors for `ids`
    /// (with `[CLS]` and `[SEP]`; at most [`Bert::max_tokens`] of them).
    pub fn embed(&self, ids: &[u32]) -> Vec<f32> {
        let h = self.hidden;
        let t = ids.len().min(self.max_tokens);
        let vocab = self.words.len() / h;
        let mut x = vec![0f32; t * h];
        for (i, &id) in ids.iter().take(t).enumerate() {
            let id = (id as usize).min(vocab.saturating_sub(1));
            let row = &mut x[i * h..(i + 1) * h];
            let (w, p) = (&self.words[id * h..][..h], &self.positions[i * h..][..h]);
            for j in 0..h {
                row[j] = w[j] + p[j] + self.token_type[j];
            }
        }
        self.norm(&mut x, &self.emb_norm);
        let dh = h / self.heads;
        let scale = 1.0 / (dh as f32).sqrt();
        let mut qkv = Vec::new();
        let mut ctx = vec![0f32; t * h];
        let mut scores = vec![0f32; t * t];
        let mut tmp = Vec::new();
        let mut up = Vec::new();
        for l in &self.layers {
            linear(&x, t, &l.qkv, &mut qkv);
            for head in 0..self.heads {
                let (q, k, v) = (
                    &qkv[head * dh..],
                    &qkv[h + head * dh..],
                    &qkv[2 * h + head * dh..],
                );
                // scores = q · kᵀ over this head's columns of the stacked rows.
                let (q, kt) = (View::new(q, 3 * h, 1), View::new(k, 1, 3 * h));
                mm((t, dh, t), scale, q, kt, 0.0, &mut scores, t);
                for row in scores.chunks_mut(t) {
                    softmax(row);
                }
                let (p, v) = (View::new(&scores, t, 1), View::new(v, 3 * h, 1));
                mm((t, t, dh), 1.0, p, v, 0.0, &mut ctx[head * dh..], h);
            }
            linear(&ctx, t, &l.attn_out, &mut tmp);
            add(&mut x, &tmp);
            self.norm(&mut x, &l.attn_norm);
            linear(&x, t, &l.up, &mut up);
            up.iter_mut().for_each(|v| *v = gelu(*v));
            linear(&up, t, &l.down, &mut tmp);
            add(&mut x, &tmp);
            self.norm(&mut x, &l.out_norm);
        }
        let mut mean = vec![0f32; h];
        for row in x.chunks(h) {
            add(&mut mean, row);
        }
        let len = mean.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
        mean.iter_mut().for_each(|v| *v /= len);
        mean
    }

    fn norm(&self, x: &mut [f32], n: &Norm) {
        let h = self.hidden as f32;
        for row in x.chunks_mut(self.hidden) {
            let mean = row.iter().sum::<f32>() / h;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h;
            let inv = 1.0 / (var + self.eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&n.g).zip(&n.b) {
                *v = (*v - mean) * inv * g + b;
            }
        }
    }
}

/// Reads named f32 tensors, with or without a `bert.` prefix on the names.
struct Tensors<'a> {
    st: &'a SafeTensors<'a>,
    path: &'a Path,
}

impl Tensors<'_> {
    /// The tensor `name`, which must hold `len` values.
    fn get(&self, name: &str, len: usize) -> Result<Vec<f32>> {
        let v = self.any(name)?;
        if v.len() != len {
            return Err(Error::Invalid(format!(
                "{}: `{name}` has {} values, expected {len}",
                self.path.display(),
                v.len()
            )));
        }
        Ok(v)
    }

    /// The tensor `name`, rows of `width` values.
    fn get_rows(&self, name: &str, width: usize) -> Result<Vec<f32>> {
        let v = self.any(name)?;
        if v.is_empty() || !v.len().is_multiple_of(width) {
            return Err(Error::Invalid(format!(
                "{}: `{name}` is not rows of {width} values",
                self.path.display()
            )));
        }
        Ok(v)
    }

    fn any(&self, name: &str) -> Result<Vec<f32>> {
        let view = self
            .st
            .tensor(name)
            .or_else(|_| self.st.tensor(&format!("bert.{name}")))
            .map_err(|_| {
                Error::Invalid(format!(
                    "{}: no tensor `{name}`: not a BERT model",
                    self.path.display()
                ))
            })?;
        if view.dtype() != Dtype::F32 {
            return Err(Error::Invalid(format!(
                "{}: `{name}` is {:?}; only F32 weights are supported",
                self.path.display(),
                view.dtype()
            )));
        }
        Ok(view
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }
}

/// `out = x · Wᵀ + b` for `t` rows of `x`.
fn linear(x: &[f32], t: usize, l: &Linear, out: &mut Vec<f32>) {
    out.clear();
    for _ in 0..t {
        out.extend_from_slice(&l.b);
    }
    // Wᵀ read in place: element (i, j) of Wᵀ is W[j · inp + i].
    let (x, wt) = (View::new(x, l.inp, 1), View::new(&l.w, 1, l.inp));
    mm((t, l.inp, l.out), 1.0, x, wt, 1.0, out, l.out);
}

/// A matrix read in place: element (i, j) is `data[i · rs + j · cs]`.
#[derive(Clone, Copy)]
struct View<'a> {
    data: &'a [f32],
    rs: usize,
    cs: usize,
}

impl<'a> View<'a> {
    fn new(data: &'a [f32], rs: usize, cs: usize) -> View<'a> {
        View { data, rs, cs }
    }

    fn shaped(self, rows: usize, cols: usize) -> ArrayView2<'a, f32> {
        // The strides come from the model's own shapes: a mismatch is a bug.
        ArrayView2::from_shape((rows, cols).strides((self.rs, self.cs)), self.data)
            .unwrap_or_else(|e| panic!("a {rows}×{cols} operand does not fit its slice: {e}"))
    }
}

/// `c = alpha · a · b + beta · c` for `a` of `m × k` and `b` of `k × n`, `c`'s
/// rows `rsc` apart.
fn mm(
    (m, k, n): (usize, usize, usize),
    alpha: f32,
    a: View,
    b: View,
    beta: f32,
    c: &mut [f32],
    rsc: usize,
) {
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    let Ok(mut c) = ArrayViewMut2::from_shape((m, n).strides((rsc, 1)), c) else {
        panic!("the {m}×{n} result does not fit its slice");
    };
    general_mat_mul(alpha, &a.shaped(m, k), &b.shaped(k, n), beta, &mut c);
}

fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    row.iter_mut().for_each(|v| *v /= sum);
}

fn add(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}

/// GELU in its tanh form, within 1e-3 of the erf form BERT was trained with,
/// written as `x · sigmoid(2u)`: one `exp` costs a third of `tanh`.
fn gelu(x: f32) -> f32 {
    const C: f32 = 2.0 * 0.797_884_6; // 2 · sqrt(2 / pi)
    x / (1.0 + (-C * (x + 0.044_715 * x * x * x)).exp())
}
