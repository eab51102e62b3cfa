//! The automatic decisions of a ConfigFile merge, as the scene merge's `Decision` is
//! for scenes: a stable `kind` scripts match on, where (section, key), the values
//! concerned, and the sentence `--explain` prints. Made by `merge.rs`; printed by the
//! command line.

use std::fmt;

/// One automatic decision of [`super::merge::merge_config`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigDecision {
    /// Stable name: `section_deleted`, `section_placed_sorted`, `key_rename_followed`,
    /// `value_merged_inside`, `sidecar_uid_kept_ours`, `fell_back`.
    pub kind: &'static str,
    /// The section (`""`: the lines before the first one), when the decision is about one.
    pub section: Option<String>,
    /// The key, when the decision is about one.
    pub key: Option<String>,
    /// The side that decided or was kept (`ours`, `theirs`), when there is one.
    pub side: Option<&'static str>,
    /// The value kept (ours' uid), when the decision picked one.
    pub kept: Option<String>,
    /// The value not kept (theirs' uid), when the decision dropped one.
    pub dropped: Option<String>,
    /// The sentence `--explain` prints.
    pub message: String,
}

impl ConfigDecision {
    /// A decision of `kind`, said as `message`; the other fields are set by the builders.
    pub fn new(kind: &'static str, message: String) -> Self {
        ConfigDecision {
            kind,
            section: None,
            key: None,
            side: None,
            kept: None,
            dropped: None,
            message,
        }
    }

    /// About `section` (and `key` in it).
    pub fn at(mut self, section: &str, key: Option<&str>) -> Self {
        self.section = Some(section.to_string());
        self.key = key.map(str::to_string);
        self
    }

    /// Made by, or in favour of, `side`.
    pub fn side(mut self, side: &'static str) -> Self {
        self.side = Some(side);
        self
    }

    /// `kept` kept and `dropped` left out.
    pub fn values(mut self, kept: &str, dropped: &str) -> Self {
        self.kept = Some(kept.to_string());
        self.dropped = Some(dropped.to_string());
        self
    }

    /// The decision as JSON for `--explain=json`: `kind` and `message` always, the
    /// other fields when set.
    pub fn to_json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        m.insert("kind".into(), self.kind.into());
        m.insert("message".into(), self.message.clone().into());
        let fields = [
            ("section", self.section.as_deref()),
            ("key", self.key.as_deref()),
            ("side", self.side),
            ("kept", self.kept.as_deref()),
            ("dropped", self.dropped.as_deref()),
        ];
        for (name, v) in fields {
            if let Some(v) = v {
                m.insert(name.into(), v.into());
            }
        }
        serde_json::Value::Object(m)
    }
}

impl fmt::Display for ConfigDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// "section `[audio]`" (or the lines before the first section), for sentences.
pub fn describe(section: &str) -> String {
    if section.is_empty() {
        "the lines before the first section".into()
    } else {
        format!("section `[{section}]`")
    }
}

/// "`[autoload] GameManager`", for sentences.
pub fn describe_key(section: &str, key: &str) -> String {
    if section.is_empty() {
        format!("`{key}`")
    } else {
        format!("`[{section}] {key}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_carries_the_kind_the_place_and_the_values() {
        let d = ConfigDecision::new("sidecar_uid_kept_ours", "kept".into())
            .at("remap", Some("uid"))
            .side("ours")
            .values("uid://a", "uid://b");
        let j = d.to_json();
        assert_eq!(j["kind"], "sidecar_uid_kept_ours");
        assert_eq!(
            (j["section"].as_str(), j["key"].as_str()),
            (Some("remap"), Some("uid"))
        );
        assert_eq!(
            (j["kept"].as_str(), j["dropped"].as_str()),
            (Some("uid://a"), Some("uid://b"))
        );
        assert!(ConfigDecision::new("fell_back", "x".into())
            .to_json()
            .get("section")
            .is_none());
        assert_eq!(d.to_string(), "kept");
    }
}
