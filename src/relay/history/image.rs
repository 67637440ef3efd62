//! Images in a transcript: what one costs a model, and how to name it.
//!
//! A model does not read an image's base64 as text: Anthropic bills
//! `width × height / 750` tokens after scaling it to fit 1568 px on the long
//! edge and about 1.15 megapixels (so at most ~1,600 tokens), OpenAI a few
//! 170-token tiles. Counting the base64 with the text estimator instead makes
//! a 260 KB screenshot look like ~190k tokens. The size comes from the PNG,
//! JPEG, GIF or WebP header, read from a decoded prefix of the payload; an
//! image whose size cannot be read (a URL, another format) is taken at the
//! ceiling, so it is never underestimated.

/// Tokens of an image whose size is unknown: the ceiling of a scaled image.
pub const MAX_IMAGE_TOKENS: usize = 1_600;

/// Long edge an image is scaled to before it is billed (Anthropic vision docs).
const MAX_EDGE: u64 = 1_568;

/// Pixels per token (Anthropic vision docs: `tokens = (width × height) / 750`).
const PIXELS_PER_TOKEN: u64 = 750;

/// Bytes decoded to find the size: a JPEG's frame header follows its EXIF
/// block (at most 64 KB) and any thumbnail, so a few hundred KB is enough.
const HEADER_BYTES: usize = 256 * 1024;

/// An image in a message or tool result.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// Media type as declared (`image/png`), or sniffed from the bytes.
    pub media_type: Option<String>,
    /// Where its bytes are.
    pub source: ImageSource,
}

/// Where an image's bytes are.
#[derive(Debug, Clone, PartialEq)]
pub enum ImageSource {
    /// Inline, base64-encoded.
    Base64(String),
    /// A URL (`https://…`, or a `data:` URI that is not base64).
    Url(String),
}

impl Image {
    /// An image given by URL; a base64 `data:` URI becomes inline data.
    pub fn from_url(url: &str) -> Image {
        if let Some(rest) = url.strip_prefix("data:")
            && let Some((meta, data)) = rest.split_once(',')
            && let Some(media) = meta.strip_suffix(";base64")
        {
            return Image {
                media_type: (!media.is_empty()).then(|| media.to_string()),
                source: ImageSource::Base64(data.to_string()),
            };
        }
        Image {
            media_type: None,
            source: ImageSource::Url(url.to_string()),
        }
    }

    /// An inline image.
    pub fn base64(media_type: Option<&str>, data: &str) -> Image {
        Image {
            media_type: media_type.map(str::to_string),
            source: ImageSource::Base64(data.to_string()),
        }
    }

    /// Its declared media type, else the one its bytes show.
    pub fn media_type(&self) -> Option<String> {
        self.media_type.clone().or_else(|| match &self.source {
            ImageSource::Base64(data) => sniff(&decode_prefix(data, 16)).map(str::to_string),
            ImageSource::Url(_) => None,
        })
    }

    /// A URL for it: the URL, or a `data:` URI of the inline bytes.
    pub fn url(&self) -> String {
        match &self.source {
            ImageSource::Base64(data) => format!(
                "data:{};base64,{data}",
                self.media_type().as_deref().unwrap_or("image/png")
            ),
            ImageSource::Url(url) => url.clone(),
        }
    }

    /// Width and height, when the header can be read.
    pub fn dimensions(&self) -> Option<(u32, u32)> {
        match &self.source {
            ImageSource::Base64(data) => dimensions(&decode_prefix(data, HEADER_BYTES)),
            ImageSource::Url(_) => None,
        }
    }

    /// Size of the inline bytes (0 for a URL).
    pub fn bytes(&self) -> usize {
        match &self.source {
            ImageSource::Base64(data) => {
                let symbols = data
                    .bytes()
                    .filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'))
                    .count();
                symbols * 3 / 4
            }
            ImageSource::Url(_) => 0,
        }
    }

    /// Estimated tokens a model spends on it.
    pub fn tokens(&self) -> usize {
        self.dimensions()
            .map_or(MAX_IMAGE_TOKENS, |(w, h)| tokens_for(w, h))
    }

    /// How a summary names it: `image/png, 1280×800, 195 KB`.
    pub fn describe(&self) -> String {
        let mut out = self.media_type().unwrap_or_else(|| "image".to_string());
        if let Some((w, h)) = self.dimensions() {
            out.push_str(&format!(", {w}×{h}"));
        }
        match &self.source {
            ImageSource::Base64(_) => {
                out.push_str(&format!(", {} KB", (self.bytes() + 500).max(1000) / 1000))
            }
            ImageSource::Url(url) if !url.starts_with("data:") => {
                let short: String = url.chars().take(80).collect();
                out.push_str(&format!(
                    " at {short}{}",
                    if short.len() < url.len() { "…" } else { "" }
                ));
            }
            ImageSource::Url(_) => {}
        }
        out
    }
}

/// Tokens of a `width × height` image once scaled as the model scales it.
pub fn tokens_for(width: u32, height: u32) -> usize {
    let (mut w, mut h) = (u64::from(width).max(1), u64::from(height).max(1));
    let long = w.max(h);
    if long > MAX_EDGE {
        w = (w * MAX_EDGE).div_ceil(long);
        h = (h * MAX_EDGE).div_ceil(long);
    }
    let tokens = (w * h).div_ceil(PIXELS_PER_TOKEN);
    usize::try_from(tokens).map_or(MAX_IMAGE_TOKENS, |t| t.min(MAX_IMAGE_TOKENS))
}

/// The media type the magic bytes show.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes([
        *b.get(at)?,
        *b.get(at + 1)?,
    ])))
}

fn le16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes([
        *b.get(at)?,
        *b.get(at + 1)?,
    ])))
}

fn le24(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *b.get(at)?,
        *b.get(at + 1)?,
        *b.get(at + 2)?,
        0,
    ]))
}

/// Width and height from a PNG, JPEG, GIF or WebP header.
pub fn dimensions(b: &[u8]) -> Option<(u32, u32)> {
    match sniff(b)? {
        "image/png" => {
            let w = u32::from_be_bytes(b.get(16..20)?.try_into().ok()?);
            let h = u32::from_be_bytes(b.get(20..24)?.try_into().ok()?);
            Some((w, h))
        }
        "image/gif" => Some((le16(b, 6)?, le16(b, 8)?)),
        "image/webp" => match b.get(12..16)? {
            b"VP8 " => Some((le16(b, 26)? & 0x3FFF, le16(b, 28)? & 0x3FFF)),
            b"VP8L" => {
                let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
                Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
            }
            b"VP8X" => Some((le24(b, 24)? + 1, le24(b, 27)? + 1)),
            _ => None,
        },
        _ => jpeg_dimensions(b),
    }
}

/// Walks a JPEG's segments to its frame header (SOF0–SOF15 but DHT, JPG, DAC).
fn jpeg_dimensions(b: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    loop {
        while *b.get(at)? != 0xFF {
            at += 1;
        }
        while *b.get(at)? == 0xFF {
            at += 1;
        }
        let marker = *b.get(at)?;
        at += 1;
        // Markers without a length: TEM, RSTn, SOI, EOI.
        if marker == 0x01 || (0xD0..=0xD9).contains(&marker) {
            continue;
        }
        let len = usize::try_from(be16(b, at)?).ok()?;
        if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            return Some((be16(b, at + 5)?, be16(b, at + 3)?));
        }
        at += len;
    }
}

/// Decodes base64 (standard or URL-safe, line breaks allowed) up to `max`
/// bytes; stops at padding or at a character that is not base64.
pub fn decode_prefix(data: &str, max: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(max.min(data.len()));
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in data.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'\r' | b'\n' | b' ' | b'\t' => continue,
            _ => break,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            // The low byte of the shifted accumulator is the next output byte.
            out.push(((acc >> bits) & 0xFF) as u8);
            if out.len() >= max {
                break;
            }
        }
    }
    out
}

/// Base64 of `bytes`, for tests that need an encoded image.
#[cfg(test)]
pub(crate) fn encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A PNG header of a `w × h` image, for tests.
#[cfg(test)]
pub(crate) fn png(w: u32, h: u32) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(w.to_be_bytes());
    b.extend(h.to_be_bytes());
    b.extend([8, 6, 0, 0, 0]);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_come_from_each_header() {
        assert_eq!(dimensions(&png(1280, 800)), Some((1280, 800)));
        let gif = b"GIF89a\x40\x01\xf0\x00".to_vec();
        assert_eq!(dimensions(&gif), Some((320, 240)));
        // JPEG: SOI, an APP0 segment to skip, then SOF0 (height 600, width 800).
        let jpeg = [
            &[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0xAA, 0xBB][..],
            &[0xFF, 0xC0, 0x00, 0x11, 0x08, 0x02, 0x58, 0x03, 0x20, 0x03],
        ]
        .concat();
        assert_eq!(dimensions(&jpeg), Some((800, 600)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend([0x7F, 0x02, 0x00, 0xDF, 0x01, 0x00]);
        assert_eq!(dimensions(&webp), Some((640, 480)));
        let mut lossless = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        // 14 bits width-1 = 99, 14 bits height-1 = 49.
        lossless.extend((99u32 | 49 << 14).to_le_bytes());
        assert_eq!(dimensions(&lossless), Some((100, 50)));
        assert_eq!(dimensions(b"not an image"), None);
    }

    #[test]
    fn tokens_follow_scaled_area_with_a_ceiling() {
        assert_eq!(tokens_for(200, 200), 54);
        assert_eq!(tokens_for(1000, 1000), 1334);
        // A 4K screenshot is scaled to 1568 px wide first, then capped.
        assert_eq!(tokens_for(3840, 2160), MAX_IMAGE_TOKENS);
        let shot = Image::base64(None, &encode(&png(1280, 800)));
        assert_eq!(shot.tokens(), 1366);
        assert_eq!(shot.media_type().as_deref(), Some("image/png"));
        let url = Image::from_url("https://example.com/a.png");
        assert_eq!(url.tokens(), MAX_IMAGE_TOKENS);
        assert_eq!(url.describe(), "image at https://example.com/a.png");
    }

    #[test]
    fn data_uris_become_inline_images_and_back() {
        let data = encode(&png(10, 20));
        let image = Image::from_url(&format!("data:image/png;base64,{data}"));
        assert_eq!(image, Image::base64(Some("image/png"), &data));
        assert_eq!(image.url(), format!("data:image/png;base64,{data}"));
        assert_eq!(image.dimensions(), Some((10, 20)));
        assert_eq!(image.describe(), "image/png, 10×20, 1 KB");
        assert_eq!(decode_prefix(&encode(b"hello world"), 5), b"hello");
    }
}
