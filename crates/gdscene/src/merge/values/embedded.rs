//! A property both sides moved from an `ExtResource` to a resource embedded in the file
//! (`material = ExtResource("2_m")` become `SubResource("StandardMaterial3D_a")` on one
//! side and `SubResource("StandardMaterial3D_b")` on the other): when the two new
//! sub_resources are of one type and one holds every property of the other with the
//! same value, that one (the superset) is kept. Anything else is left to the caller (a
//! conflict). Which resources stay used afterwards is `resources.rs`'s.

use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::sections::Src;
use std::collections::BTreeMap;

impl<'a> Ctx<'a> {
    /// The side (`O` or `T`) whose embedded resource is the superset of the other's, when
    /// base's value is an `ExtResource` and each side's a new `SubResource` of one type.
    pub(in crate::merge) fn embedded_superset(
        &self,
        b: &Option<Src>,
        o: &Option<Src>,
        t: &Option<Src>,
    ) -> Option<usize> {
        let base = self.text(b.as_ref()?).trim();
        if !base.starts_with("ExtResource(") || !base.ends_with(')') {
            return None;
        }
        let (so, st) = (self.new_sub(o.as_ref()?)?, self.new_sub(t.as_ref()?)?);
        let (po, pt) = (self.sub_props(O, so), self.sub_props(T, st));
        let within = |a: &BTreeMap<&str, String>, b: &BTreeMap<&str, String>| {
            a.iter().all(|(k, v)| b.get(k) == Some(v))
        };
        if within(&pt, &po) {
            Some(O)
        } else if within(&po, &pt) {
            Some(T)
        } else {
            None
        }
        .filter(|_| {
            self.sc[O].sub_resources[so].type_name == self.sc[T].sub_resources[st].type_name
        })
    }

    /// The type of the sub_resource a value names, for the decision's sentence.
    pub(in crate::merge) fn embedded_type(&self, v: &Option<Src>) -> String {
        v.as_ref()
            .and_then(|s| {
                self.new_sub(s)
                    .map(|i| self.sc[s.0].sub_resources[i].type_name.clone())
            })
            .unwrap_or_default()
    }

    /// The index of the sub_resource a value that is exactly `SubResource(...)` names on
    /// its side, when base has no such resource (the side embedded it).
    fn new_sub(&self, v: &Src) -> Option<usize> {
        let text = self.text(v).trim();
        let inner = text.strip_prefix("SubResource(")?.strip_suffix(')')?;
        let id = inner.trim().trim_matches('"');
        let &i = self.idx[v.0].sub.get(id)?;
        let ident = self.id.sub.of[v.0][i];
        self.id.sub.at[ident][B].is_none().then_some(i)
    }

    /// A sub_resource's properties, each value normalized (ids read as identities).
    fn sub_props(&self, side: usize, i: usize) -> BTreeMap<&'a str, String> {
        let sc: &'a crate::model::Scene = self.sc[side];
        let sec = &sc.doc.sections[sc.sub_resources[i].section];
        sec.props
            .iter()
            .map(|p| (p.key.as_str(), self.norm(&(side, p.value.range()))))
            .collect()
    }
}
