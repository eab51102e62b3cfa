//! Shared vocabulary, imported by every stage and importing none: the merge's context
//! [`context::Ctx`] (the three scenes, their identities, lookups by id and path, the
//! conflict and decision logs), the typed pieces of the result the printer turns into
//! text ([`sections`]), the three-way merge of ordered lists ([`sequence`]), the
//! conflict log every stage writes to ([`conflicts`]) and the sub_resource references
//! each side spells, searched once for every stage that reads them ([`subs_named`]).
//! It decides nothing of its own.

pub(super) mod conflicts;
pub(super) mod context;
pub(super) mod idents;
pub(super) mod merged;
pub(super) mod report;
pub(super) mod sections;
pub mod sequence;
pub(super) mod subs_named;
