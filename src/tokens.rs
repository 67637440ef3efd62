//! The one token estimator used everywhere.
//!
//! [`estimate`] approximates how many tokens the o200k BPE (the GPT-4o family's
//! tokenizer) makes of a text, without its 200k-entry vocabulary. Exact counting needs
//! the vocabulary and a regex pre-tokenizer and runs at about 10 MB/s; chunking, budgets
//! and reports only need a number that is right to a few percent, cheaply.
//!
//! # How
//!
//! o200k first splits text into *pieces* with a regex, and BPE merges bytes only inside
//! a piece, so the piece structure decides most of the count:
//!
//! - a letter run with an optional one-char non-letter prefix: ` word`, `(word`,
//!   `.field` (a camelCase word splits before each capital after a lowercase letter);
//! - digit runs, in groups of at most three;
//! - a punctuation run with an optional leading space and the newlines after it
//!   (` {\n`, `);\n`);
//! - a newline run with the whitespace before it, and space runs, whose last space
//!   joins the next piece (indentation is one token, then ` let`).
//!
//! A 74-state automaton over 13 byte classes follows that structure in one pass
//! (`row = NEXT_ROW[row | class(byte)]`, no branches on the data, no allocation), and
//! each transition adds a fixed-point cost: what BPE typically makes of that part of a
//! piece. A common word with its space is one token; longer words pay extra per letter
//! after the fifth; punctuation runs pay for each char after the second; non-ASCII
//! letters pay per character (CJK ≈ 0.7 token per char).
//!
//! # Calibration
//!
//! The 30 costs in `COST` were fitted by least squares on the *relative* per-chunk
//! error against the real o200k count (crate `bpe-openai`) over the even-numbered files
//! of five corpora (the Rust book, the Kubernetes enhancement proposals, Rust crate
//! sources, the Python standard library, and the Japanese / Chinese / Korean / Spanish
//! Rust by Example), and checked on the odd-numbered files. `cargo bench --bench tokens`
//! prints the held-out table (chunks of ≤ 2,400 bytes, like ctx's ≤ 600-token chunks);
//! with `CTX_TOKENS_FIT=1` it refits and prints the costs. Held-out p90 per-chunk error
//! is 4.6–6.7 % on every corpus (chars / 4: 19–48 %), whole-corpus bias within ±1.2 %.

/// Fixed-point scale of the per-transition costs: 1/1024 token.
const SCALE_BITS: u32 = 10;

// ---- byte classes -------------------------------------------------------------------

/// ASCII lowercase letter.
const LO: u8 = 0;
/// ASCII uppercase letter.
const UP: u8 = 1;
/// ASCII digit.
const DIG: u8 = 2;
/// Space, tab, vertical tab, form feed.
const SP: u8 = 3;
/// `\n` or `\r`.
const NL: u8 = 4;
/// ASCII punctuation, symbols and control characters.
const PUN: u8 = 5;
/// UTF-8 continuation byte: part of the character its lead byte already paid for.
const CONT: u8 = 6;
/// Lead byte of a 2-byte letter (Latin-1 letters, Greek, Cyrillic, Hebrew, Arabic, ...).
const NAL2: u8 = 7;
/// Lead byte of a 3-byte non-CJK letter (Indic, Thai, Georgian, Vietnamese, ...).
const NAL3: u8 = 8;
/// Lead byte of CJK ideographs, kana and Hangul (U+3000..U+D7FF).
const CJK: u8 = 9;
/// Lead byte 0xC2: no-break space and Latin-1 symbols (`©`, `°`, `«`). Moves like a
/// space, because no-break spaces dominate in real documents and are whitespace to o200k.
const SYM2: u8 = 10;
/// Lead byte of a 3-byte symbol: general punctuation (`’` `“` `—` `…`), arrows, math,
/// box drawing, fullwidth forms.
const SYM3: u8 = 11;
/// Lead byte of a 4-byte character (emoji, rare scripts): several tokens each.
const SYM4: u8 = 12;

/// Classes are padded to 16 so a table index is `state << 4 | class`.
const CLASS_BITS: u32 = 4;

/// The class of byte `b`.
pub(crate) const fn class_of(b: u8) -> u8 {
    match b {
        b'a'..=b'z' => LO,
        b'A'..=b'Z' => UP,
        b'0'..=b'9' => DIG,
        b' ' | b'\t' | 0x0B | 0x0C => SP,
        b'\n' | b'\r' => NL,
        0x80..=0xBF => CONT,
        0xC0..=0xC2 => SYM2,
        0xC3..=0xDF => NAL2,
        0xE0 | 0xE1 => NAL3,
        0xE2 | 0xEE | 0xEF => SYM3,
        0xE3..=0xED => CJK,
        0xF0..=0xFF => SYM4,
        _ => PUN,
    }
}

/// Byte → class, so the hot loop is two loads per byte.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = class_of(b as u8);
        b += 1;
    }
    t
};

// ---- states -------------------------------------------------------------------------

/// Letter positions a word state tracks; the last one repeats for longer words.
const WMAX: usize = 9;
/// Punctuation-run lengths tracked; the last one repeats for longer runs.
const PMAX: usize = 4;

/// Between pieces, where nothing can become a prefix (also the initial state).
const START: usize = 0;
/// Word states: prefix kind `k` (0 none, 1 a space, 2 one punctuation char), letters
/// seen `i`, and whether the last letter was lowercase (an uppercase letter after a
/// lowercase one starts a new piece: camelCase).
const fn w(k: usize, i: usize, low: usize) -> usize {
    1 + (k * WMAX + (i - 1)) * 2 + low
}
/// Inside a word with non-ASCII letters.
const WN: usize = w(2, WMAX, 1) + 1;
/// Digit states: `D1 + j` after `j + 1` digits of the current group of three.
const D1: usize = WN + 1;
/// One space after a piece: it will join the next word or punctuation run.
const S1: usize = D1 + 3;
/// Two or more spaces: all but the last are a token of their own.
const SN: usize = S1 + 1;
/// [`S1`] right after a newline run (a newline here continues that run's piece).
const NS1: usize = SN + 1;
/// [`SN`] right after a newline run.
const NSN: usize = NS1 + 1;
/// One newline.
const N1: usize = NSN + 1;
/// Several newlines.
const NN: usize = N1 + 1;
/// Punctuation-run states: `k` = 1 if the run started with a space, `j` chars seen.
const fn p(k: usize, j: usize) -> usize {
    NN + 1 + k * PMAX + (j - 1)
}
/// A punctuation run that has swallowed the newline(s) after it.
const PNL: usize = p(1, PMAX) + 1;
/// Number of states.
const N_STATES: usize = PNL + 1;

// ---- cost parameters ----------------------------------------------------------------
//
// A transition pays the sum of up to three parameters. Parameters are indices into
// `COST`; `pub(crate)` so that the calibration in `benches/tokens.rs` can replay the
// automaton and count how often each one is paid.

/// `WORD_FIRST + k`: the first letter of a word with prefix kind `k` (the piece itself).
pub(crate) const WORD_FIRST: usize = 0;
/// `WORD_MID + k`: each of letters 6..=8 (letters 2..=5 are free: short words are one
/// token).
pub(crate) const WORD_MID: usize = WORD_FIRST + 3;
/// `WORD_LONG + k`: each letter from the 9th on.
pub(crate) const WORD_LONG: usize = WORD_MID + 3;
/// An uppercase letter after an uppercase letter (ALL-CAPS tokenizes worse).
pub(crate) const UPPER_RUN: usize = WORD_LONG + 3;
/// Per 2-byte letter, 3-byte non-CJK letter, CJK char, and ASCII letter inside a word
/// that has non-ASCII letters.
pub(crate) const NA_L2: usize = UPPER_RUN + 1;
/// See [`NA_L2`].
pub(crate) const NA_L3: usize = NA_L2 + 1;
/// See [`NA_L2`].
pub(crate) const NA_CJK: usize = NA_L3 + 1;
/// See [`NA_L2`].
pub(crate) const NA_ASCII: usize = NA_CJK + 1;
/// The first digit of each group of three.
pub(crate) const DIGITS: usize = NA_ASCII + 1;
/// A single space that cannot join the next piece (digits take no prefix).
pub(crate) const SPACE_ALONE: usize = DIGITS + 1;
/// A run of two or more spaces (indentation, alignment).
pub(crate) const SPACE_RUN: usize = SPACE_ALONE + 1;
/// A newline run's first newline.
pub(crate) const NL_FIRST: usize = SPACE_RUN + 1;
/// Each further newline of a run.
pub(crate) const NL_MORE: usize = NL_FIRST + 1;
/// A newline after spaces (`  \n`, or blank lines holding spaces).
pub(crate) const NL_AFTER_SPACE: usize = NL_MORE + 1;
/// `PUNCT_FIRST + k`: the first char of a punctuation run (`k` = 1: space-led).
pub(crate) const PUNCT_FIRST: usize = NL_AFTER_SPACE + 1;
/// `PUNCT_THIRD + k`: the third char (the second is free: `()`, `::`, ` =>` are tokens).
pub(crate) const PUNCT_THIRD: usize = PUNCT_FIRST + 2;
/// `PUNCT_LONG + k`: each char from the fourth on.
pub(crate) const PUNCT_LONG: usize = PUNCT_THIRD + 2;
/// The second and later newline swallowed by a punctuation run (the first is free).
pub(crate) const PUNCT_NL_MORE: usize = PUNCT_LONG + 2;
/// Extra cost of a 0xC2 character (no-break space, `©`, `°`), on top of a space.
pub(crate) const SYM_2: usize = PUNCT_NL_MORE + 1;
/// Extra cost of a 3-byte symbol, on top of punctuation.
pub(crate) const SYM_3: usize = SYM_2 + 1;
/// Extra cost of a 4-byte character, on top of punctuation.
pub(crate) const SYM_4: usize = SYM_3 + 1;
/// Number of cost parameters.
pub(crate) const N_PARAMS: usize = SYM_4 + 1;

/// Marks an unused parameter slot of a transition.
pub(crate) const NONE: u8 = u8::MAX;

/// Calibrated costs in tokens, indexed by the parameters above (see the module docs for
/// how they were fitted; `CTX_TOKENS_FIT=1 cargo bench --bench tokens` refits them).
pub(crate) const COST: [f64; N_PARAMS] = {
    let mut c = [0.0; N_PARAMS];
    // By prefix kind: none (line start, after `((`, camelCase tail), space, one
    // punctuation char (the char already paid as punctuation, so the word is nearly
    // free, but such pieces split more often in BPE).
    let first = [0.950, 0.975, 0.072];
    let mid = [0.078, 0.034, 0.184];
    let long = [0.245, 0.039, 0.271];
    let mut k = 0;
    while k < 3 {
        c[WORD_FIRST + k] = first[k];
        c[WORD_MID + k] = mid[k];
        c[WORD_LONG + k] = long[k];
        k += 1;
    }
    c[UPPER_RUN] = 0.133;
    c[NA_L2] = 0.461;
    c[NA_L3] = 0.617;
    c[NA_CJK] = 0.693;
    c[NA_ASCII] = 0.470;
    c[DIGITS] = 1.081;
    c[SPACE_ALONE] = 0.897;
    c[SPACE_RUN] = 0.912;
    c[NL_FIRST] = 1.245;
    c[NL_MORE] = 0.042;
    c[NL_AFTER_SPACE] = 0.550;
    c[PUNCT_FIRST] = 1.052;
    c[PUNCT_FIRST + 1] = 1.129;
    c[PUNCT_THIRD] = 0.118;
    c[PUNCT_THIRD + 1] = 0.082;
    c[PUNCT_LONG] = 0.101;
    c[PUNCT_LONG + 1] = 0.039;
    c[PUNCT_NL_MORE] = 0.131;
    c[SYM_2] = 0.338;
    c[SYM_3] = 0.213;
    c[SYM_4] = 1.016;
    c
};

// ---- transitions --------------------------------------------------------------------

/// A transition: the next state and the parameters it pays.
pub(crate) type Step = (usize, [u8; 3]);

const fn pay0() -> [u8; 3] {
    [NONE; 3]
}
const fn pay1(a: usize) -> [u8; 3] {
    [a as u8, NONE, NONE]
}
const fn pay2(a: usize, b: usize) -> [u8; 3] {
    [a as u8, b as u8, NONE]
}
/// `ps` with `a` put in front (`ps` must have a free slot).
const fn pay_also(a: usize, ps: [u8; 3]) -> [u8; 3] {
    [a as u8, ps[0], ps[1]]
}

/// The letter-position parameter of the `i`-th letter of a word with prefix kind `k`.
const fn letter(k: usize, i: usize) -> [u8; 3] {
    match i {
        1 => pay1(WORD_FIRST + k),
        2..=5 => pay0(),
        6..=8 => pay1(WORD_MID + k),
        _ => pay1(WORD_LONG + k),
    }
}

/// The parameter of the `j`-th char of a punctuation run (`k` = 1: space-led).
const fn punct(k: usize, j: usize) -> usize {
    match j {
        1 => PUNCT_FIRST + k,
        2 => NONE as usize,
        3 => PUNCT_THIRD + k,
        _ => PUNCT_LONG + k,
    }
}

/// The per-character parameter of a non-ASCII letter class.
const fn na_letter(class: u8) -> usize {
    match class {
        NAL2 => NA_L2,
        NAL3 => NA_L3,
        _ => NA_CJK,
    }
}

/// The extra parameter of a non-ASCII symbol class.
const fn symbol(class: u8) -> usize {
    match class {
        SYM3 => SYM_3,
        _ => SYM_4,
    }
}

/// Starts a piece with a byte of `class`. `k` is the prefix kind a word starting here
/// has, `pk` whether a punctuation run starting here is space-led.
const fn start(class: u8, k: usize, pk: usize) -> Step {
    match class {
        LO => (w(k, 1, 1), letter(k, 1)),
        UP => (w(k, 1, 0), letter(k, 1)),
        DIG => (D1, pay1(DIGITS)),
        SP => (S1, pay0()),
        NL => (N1, pay1(NL_FIRST)),
        PUN => (p(pk, 1), pay1(punct(pk, 1))),
        SYM3 | SYM4 => (p(pk, 1), pay2(punct(pk, 1), symbol(class))),
        NAL2 | NAL3 | CJK => (WN, pay1(na_letter(class))),
        _ => (START, pay0()),
    }
}

/// The transition from `state` on a byte of `class`.
pub(crate) const fn step(state: usize, class: u8) -> Step {
    if class == CONT {
        return (state, pay0());
    }
    if class == SYM2 {
        // Moves like a space; space transitions pay nothing, so the slot is free.
        return (step(state, SP).0, pay1(SYM_2));
    }
    if state >= w(0, 1, 0) && state < WN {
        let x = (state - 1) / 2;
        let (k, i, low) = (x / WMAX, x % WMAX + 1, (state - 1) % 2);
        let i = if i < WMAX { i + 1 } else { WMAX };
        return match class {
            LO => (w(k, i, 1), letter(k, i)),
            UP if low == 1 => (w(0, 1, 0), letter(0, 1)),
            UP => (w(k, i, 0), pay_also(UPPER_RUN, letter(k, i))),
            NAL2 | NAL3 | CJK => (WN, pay1(na_letter(class))),
            _ => start(class, 0, 0),
        };
    }
    if state >= p(0, 1) && state < PNL {
        let x = state - p(0, 1);
        let (k, seen) = (x / PMAX, x % PMAX + 1);
        let j = if seen < PMAX { seen + 1 } else { PMAX };
        return match class {
            PUN => (p(k, j), [punct(k, j) as u8, NONE, NONE]),
            SYM3 | SYM4 => (p(k, j), [punct(k, j) as u8, symbol(class) as u8, NONE]),
            NL => (PNL, pay0()),
            // A lone punctuation char opening a piece is the prefix of the word after it.
            _ if k == 0 && seen == 1 => start(class, 2, 0),
            _ => start(class, 0, 0),
        };
    }
    match state {
        WN => match class {
            LO | UP => (WN, pay1(NA_ASCII)),
            NAL2 | NAL3 | CJK => (WN, pay1(na_letter(class))),
            _ => start(class, 0, 0),
        },
        _ if state >= D1 && state < D1 + 3 => match class {
            DIG if state == D1 + 2 => (D1, pay1(DIGITS)),
            DIG => (state + 1, pay0()),
            _ => start(class, 0, 0),
        },
        S1 | NS1 => match class {
            SP => (if state == S1 { SN } else { NSN }, pay0()),
            DIG => (D1, pay2(SPACE_ALONE, DIGITS)),
            NL if state == NS1 => (NN, pay1(NL_AFTER_SPACE)),
            _ => start(class, 1, 1),
        },
        SN | NSN => match class {
            SP => (state, pay0()),
            DIG => (D1, [SPACE_RUN as u8, SPACE_ALONE as u8, DIGITS as u8]),
            NL => (if state == SN { N1 } else { NN }, pay1(NL_AFTER_SPACE)),
            _ => {
                let (next, ps) = start(class, 1, 1);
                (next, pay_also(SPACE_RUN, ps))
            }
        },
        N1 | NN => match class {
            NL => (NN, pay1(NL_MORE)),
            SP => (NS1, pay0()),
            _ => start(class, 0, 0),
        },
        PNL => match class {
            NL => (PNL, pay1(PUNCT_NL_MORE)),
            _ => start(class, 0, 0),
        },
        _ => start(class, 0, 0),
    }
}

/// Number of table entries: a row of 16 class columns per state.
const TABLE_LEN: usize = N_STATES << CLASS_BITS;

/// Both transition tables, computed at compile time from [`step`] and [`COST`]: the next
/// state's row offset (`state << 4`), and the transition's cost in 1/1024 token.
const TABLES: ([u16; TABLE_LEN], [u16; TABLE_LEN]) = {
    let (mut next_row, mut cost_fixed) = ([0u16; TABLE_LEN], [0u16; TABLE_LEN]);
    let mut s = 0;
    while s < N_STATES {
        let mut c = 0;
        while c < (1 << CLASS_BITS) {
            let (next, ps) = step(s, c as u8);
            let mut cost = 0.0;
            let mut i = 0;
            while i < ps.len() {
                if ps[i] != NONE {
                    cost += COST[ps[i] as usize];
                }
                i += 1;
            }
            // Costs are never negative, so the running total never decreases.
            let fixed = (cost * (1 << SCALE_BITS) as f64 + 0.5) as u64;
            assert!(fixed <= u16::MAX as u64, "transition cost fits u16");
            next_row[(s << CLASS_BITS) | c] = (next << CLASS_BITS) as u16;
            cost_fixed[(s << CLASS_BITS) | c] = fixed as u16;
            c += 1;
        }
        s += 1;
    }
    (next_row, cost_fixed)
};
/// Separate tables rather than one packed word: loading the next row straight from
/// memory keeps the per-byte dependency chain to an OR and a load (~15 % faster).
static NEXT_ROW: [u16; TABLE_LEN] = TABLES.0;
static COST_FIXED: [u16; TABLE_LEN] = TABLES.1;

const _: () = assert!(N_PARAMS < NONE as usize, "parameters fit a u8 slot");

/// Estimated number of o200k tokens in `text`.
///
/// One pass over the bytes through a small table-driven automaton; no allocation, several
/// hundred MB/s. Typically within a few percent of the real count on a chunk of prose or
/// code (the module docs give the measured error); never decreases as text is appended.
pub fn estimate(text: &str) -> usize {
    let mut count = Running::default();
    count.push(text);
    count.value()
}

/// The length of the longest prefix of `text` that ends on a char boundary and
/// whose [`estimate`] is at most `max`, found in one pass: an estimate never
/// falls as text is added, so the first boundary over `max` ends the search.
pub fn longest_prefix_within(text: &str, max: usize) -> usize {
    let bytes = text.as_bytes();
    let mut count = Running::default();
    let mut fits = 0;
    for (i, &b) in bytes.iter().enumerate() {
        count.push_byte(b);
        // The prefix ends on a boundary unless the next byte continues a char.
        if bytes.get(i + 1).is_none_or(|&n| n & 0xC0 != 0x80) {
            if count.value() > max {
                break;
            }
            fits = i + 1;
        }
    }
    fits
}

/// [`estimate`] of a text that arrives piece by piece: after any pushes, `value` is the
/// estimate of their concatenation, without rescanning what came before.
#[derive(Debug, Clone, Copy, Default)]
pub struct Running {
    row: usize,
    total: usize,
}

impl Running {
    /// Appends `text`.
    #[inline]
    pub fn push(&mut self, text: &str) {
        for &b in text.as_bytes() {
            self.push_byte(b);
        }
    }

    #[inline]
    fn push_byte(&mut self, b: u8) {
        let i = self.row | CLASS[b as usize] as usize;
        self.row = NEXT_ROW[i] as usize;
        self.total += COST_FIXED[i] as usize;
    }

    /// The estimate of everything pushed so far.
    pub fn value(&self) -> usize {
        (self.total + (1 << (SCALE_BITS - 1))) >> SCALE_BITS
    }
}

// An explicit path: benches/tokens.rs includes this file with `#[path]`, and
// the module must resolve the same way from there.
#[cfg(test)]
#[path = "tokens/tests.rs"]
mod tests;

// Shared with `benches/tokens.rs`, which includes it on its own (it is test-only here).
#[cfg(test)]
#[path = "tokens/split.rs"]
mod split;
