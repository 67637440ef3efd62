//! The values of a JSON array's categorical fields (`.items[] | .status: "ok"
//! ×19794, "error" ×206`): which items there are to select, and how many of
//! each, before an agent writes its first filter. A field is categorical when
//! its values are short strings or booleans that repeat, few distinct ones
//! across many items; names and IDs, all different, are not.

use std::collections::HashMap;

use serde_json::Value;

/// More distinct values than this and a field is not a category.
const MAX_DISTINCT: usize = 12;

/// Longer strings are text, not a category's value.
const MAX_VALUE_CHARS: usize = 40;

/// Fields followed per array (the first seen), so a value whose items have
/// thousands of different keys costs no more than a regular one.
const MAX_FIELDS: usize = 32;

/// Items counted at most (the first ones): walking a parsed array's items
/// costs ~200 ns each, and a preview of 400,000 items should not pay 90 ms
/// for counts the first 50,000 show as well.
pub const MAX_ITEMS_COUNTED: usize = 50_000;

/// A categorical field of an array's items and how often each value occurs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Category {
    /// Its jq path, through every item (`.items[] | .status`).
    pub path: String,
    /// The key in each item.
    #[serde(skip)]
    pub key: String,
    /// Each value as a JSON literal (`"error"`, `true`) with its count, most
    /// frequent first (ties in order of first appearance).
    pub counts: Vec<(String, usize)>,
}

impl Category {
    /// The value fewest items have: the one worth selecting (`"error"` among
    /// `"ok"`s).
    pub fn rarest(&self) -> Option<&str> {
        self.counts.last().map(|(v, _)| v.as_str())
    }

    /// The share of the items with this field that have its rarest value.
    fn rarest_share(&self) -> f64 {
        let total: usize = self.counts.iter().map(|(_, n)| n).sum();
        let rarest = self.counts.last().map_or(0, |(_, n)| *n);
        rarest as f64 / total.max(1) as f64
    }
}

/// The category whose rarest value is rarest among its items (failures among
/// successes rather than one region of three): the selection worth showing.
/// The first such on a tie.
pub fn most_selective(categories: &[Category]) -> Option<&Category> {
    categories.iter().reduce(|best, c| {
        if c.rarest_share() < best.rarest_share() {
            c
        } else {
            best
        }
    })
}

/// One field followed through the items: its values and counts, in order of
/// first appearance; `None` once it has shown too many distinct values or a
/// value that is not short. Values are borrowed from the items: a long array
/// is counted without copying a value per item.
struct Tally<'a> {
    key: &'a str,
    counts: Option<Vec<(&'a Value, usize)>>,
}

impl<'a> Tally<'a> {
    fn add(&mut self, value: &'a Value) {
        let Some(counts) = &mut self.counts else {
            return;
        };
        match value {
            Value::String(s)
                if s.len() <= MAX_VALUE_CHARS || s.chars().count() <= MAX_VALUE_CHARS => {}
            Value::Bool(_) => {}
            Value::Null => return,
            _ => {
                self.counts = None;
                return;
            }
        }
        if let Some(i) = counts.iter().position(|(v, _)| *v == value) {
            counts[i].1 += 1;
        } else if counts.len() < MAX_DISTINCT {
            counts.push((value, 1));
        } else {
            self.counts = None;
        }
    }
}

/// The categorical fields of `items`' objects (the first
/// [`MAX_ITEMS_COUNTED`]), in the order their keys first appear; `each` is the
/// jq path through the items (`.items[]`).
pub fn categories(each: &str, items: &[Value]) -> Vec<Category> {
    let mut tallies: Vec<Tally<'_>> = Vec::new();
    let mut slot_of: HashMap<&str, usize> = HashMap::new();
    for item in items.iter().take(MAX_ITEMS_COUNTED) {
        let Value::Object(map) = item else { continue };
        for (j, (key, value)) in map.iter().enumerate() {
            // Items of one array mostly have the same keys in the same
            // order: the key at the same place is checked before hashing.
            let slot = match tallies.get(j) {
                Some(t) if t.key == key.as_str() => Some(j),
                _ => slot_of.get(key.as_str()).copied(),
            };
            let slot = match slot {
                Some(i) => i,
                None if tallies.len() < MAX_FIELDS => {
                    slot_of.insert(key.as_str(), tallies.len());
                    tallies.push(Tally {
                        key: key.as_str(),
                        counts: Some(Vec::new()),
                    });
                    tallies.len() - 1
                }
                None => continue,
            };
            tallies[slot].add(value);
        }
    }
    tallies
        .into_iter()
        .filter_map(|t| {
            let counts = t.counts?;
            let total: usize = counts.iter().map(|(_, n)| n).sum();
            // Values that repeat: at least two of them, each seen twice on
            // average.
            if counts.len() < 2 || total < 2 * counts.len() {
                return None;
            }
            let mut counts: Vec<(String, usize)> = counts
                .into_iter()
                .map(|(v, n)| (v.to_string(), n))
                .collect();
            // Stable: equal counts keep the order they first appeared in.
            counts.sort_by_key(|c| std::cmp::Reverse(c.1));
            Some(Category {
                path: format!("{each} | {}", super::shape::child_path(".", t.key)),
                key: t.key.to_string(),
                counts,
            })
        })
        .collect()
}

/// `"ok" ×19794, "error" ×206`: whole values while the line stays within
/// `max_chars` (the first always), then how many more there are.
pub fn render_counts(counts: &[(String, usize)], max_chars: usize) -> String {
    let mut out = String::new();
    for (i, (v, n)) in counts.iter().enumerate() {
        let part = format!("{}{v} ×{n}", if i == 0 { "" } else { ", " });
        let rest = counts.len() - i;
        // Room for the ", N more" that would follow.
        let tail = if rest > 1 { 12 } else { 0 };
        if i > 0 && out.chars().count() + part.chars().count() + tail > max_chars {
            out.push_str(&format!(", {rest} more"));
            break;
        }
        out.push_str(&part);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn repeated_short_values_are_categories() {
        let items: Vec<Value> = (0..200)
            .map(|i| {
                let zone = ["a", "b", "c"][i % 3];
                json!({
                    "id": i,
                    "name": format!("svc-{i}"),
                    "status": if i % 50 == 0 { "error" } else { "ok" },
                    "up": i % 2 == 0,
                    "zone": zone,
                    "note": if i == 7 { json!(null) } else { json!("x".repeat(60)) },
                })
            })
            .collect();
        let found = categories(".[]", &items);
        let keys: Vec<&str> = found.iter().map(|c| c.key.as_str()).collect();
        // `id` is a number, `name` all different, `note` long text.
        assert_eq!(keys, ["status", "up", "zone"]);
        assert_eq!(found[0].path, ".[] | .status");
        assert_eq!(
            found[0].counts,
            [("\"ok\"".to_string(), 196), ("\"error\"".to_string(), 4)]
        );
        assert_eq!(found[0].rarest(), Some("\"error\""));
        // `zone`'s rarest value is a third of the items, `status`'s 2 %.
        let reordered = [found[2].clone(), found[0].clone()];
        assert_eq!(
            most_selective(&reordered).map(|c| c.key.as_str()),
            Some("status")
        );
        assert_eq!(
            found[1].counts,
            [("true".to_string(), 100), ("false".to_string(), 100)]
        );
        assert_eq!(
            render_counts(&found[2].counts, 80),
            "\"a\" ×67, \"b\" ×67, \"c\" ×66"
        );
        assert_eq!(render_counts(&found[2].counts, 20), "\"a\" ×67, 2 more");
        assert_eq!(render_counts(&found[2].counts, 1), "\"a\" ×67, 2 more");
    }

    #[test]
    fn few_items_or_too_many_values_are_not() {
        let two = [json!({"s": "a"}), json!({"s": "b"})];
        assert!(categories(".[]", &two).is_empty());
        let many: Vec<Value> = (0..100)
            .map(|i| json!({"s": format!("v{}", i % 13)}))
            .collect();
        assert!(categories(".[]", &many).is_empty());
        let mixed = [
            json!({"s": "a"}),
            json!({"s": 1}),
            json!({"s": "a"}),
            json!({"s": "b"}),
        ];
        assert!(categories(".[]", &mixed).is_empty());
    }
}
