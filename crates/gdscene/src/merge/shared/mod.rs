//! Shared vocabulary, imported by every stage and importing none: the merge's context
//! [`context::Ctx`] (the three scenes, their identities, lookups by id and path, the
//! conflict and decision logs), the typed pieces of the result the printer turns into
//! text ([`sections`]), the three-way merge of ordered lists ([`sequence`]) and the
//! conflict log every stage writes to ([`conflicts`]). It decides nothing of its own.

pub(super) mod conflicts;
pub(super) mod context;
pub(super) mod idents;
pub(super) mod merged;
pub(super) mod report;
pub(super) mod sections;
pub mod sequence;
