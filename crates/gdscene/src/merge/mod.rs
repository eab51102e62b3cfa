//! Structural three-way merge of scenes and resources.
//!
//! The merge reads base, ours and theirs as keyed scenes, matches every part across the
//! three (ext_resources by uid/path, sub_resources by id, use and content, nodes by
//! unique_id or path, connections, editables), merges property by property and field by
//! field, reconciles resource ids (ours keeps its ids; a colliding id from theirs is
//! renamed and every reference rewritten), and writes the result: untouched sections are
//! ours' bytes, new ones follow Godot's layout. Real conflicts become small diff3 markers
//! around one property line, one header or one section.
//!
//! Layout: `merge_scenes` runs the structural merge as a pipeline of stages, one folder
//! each, in this order: `identity/` (which part is which), `tree/` (which nodes are in
//! the result, where), `values/` (values, resources, paths that name nodes), `ids/`
//! (resource ids), `output/` (hunks and printing); `shared/` holds the types they all
//! speak and [`Decision`] lives in `decisions.rs`. A stage imports only the stages before
//! it (docs/architecture.md; `tests/merge_stages.rs` holds it). [`merge`] wraps the
//! pipeline with the trivial cases, validation and the line-merge fallback.
//!
//! Safety net: a result is called clean only if it re-parses and passes
//! [`crate::check`]; otherwise the merge falls back to [`crate::linemerge`], which behaves
//! like `git merge-file`.

mod decisions;
mod identity;
mod ids;
mod output;
mod shared;
mod tree;
mod values;

pub use decisions::Decision;
pub use shared::report::{shorten, ConflictReport};
pub use shared::sequence;

use ids::assign;
use output::{carried, header, print, spelling};
use shared::{context, sections};
use tree::{connections, editables, node_tags, nodes, order, paths};
use values::{nodepaths, resources, saved_state, track_paths};

use crate::check::{check, is_broken};
use crate::linemerge::{merge_lines, MarkerOptions};
use crate::model::Scene;
use crate::syntax::Source;

/// What the caller chooses about a merge.
#[derive(Debug, Clone, Default)]
pub struct MergeOptions {
    /// Marker size, labels and conflict style, as git passes them.
    pub markers: MarkerOptions,
    /// The caller is a process that exits right after this merge (the command line):
    /// the parsed scenes of a big merge are then left for the exit to reclaim rather
    /// than freed allocation by allocation, as compilers do with `-disable-free`.
    /// Freeing three 20 MB scenes takes a core while the result is being validated.
    /// Leave it `false` in a process that goes on (it would keep that memory).
    pub exit_after: bool,
    /// Merge container layout and editor-only state like any property (`merge
    /// --no-layout-policy`) instead of keeping ours' where both sides changed it.
    pub no_layout_policy: bool,
    /// Conflict on saved editor state both sides changed differently (bone poses, an
    /// animated sprite's frame, AnimationTree parameters, blend shapes, values an
    /// AnimationPlayer drives; `merge --state=conflict`) instead of taking the RESET
    /// animation's value, else ours'.
    pub saved_state_conflicts: bool,
}

/// How the result was produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// One side equals base (or both sides are equal): the other side's bytes.
    Trivial,
    /// The structural merge.
    Structural,
    /// The line merge, and why the structural one was not used.
    LineFallback(String),
}

/// The result of a merge.
#[derive(Debug, Clone)]
pub struct MergeOutcome {
    /// The merged file (with conflict markers when `conflicts` is not empty, or when the
    /// line fallback left some).
    pub text: Vec<u8>,
    /// Number of conflict blocks in `text` (hunks as written: neighbouring conflicts
    /// joined as git joins them count once).
    pub conflict_count: usize,
    /// Structural conflicts, for the report, in file order (empty after a line
    /// fallback); one hunk may hold several.
    pub conflicts: Vec<ConflictReport>,
    /// How the result was produced.
    pub method: Method,
    /// Automatic decisions, in the order they were made.
    pub decisions: Vec<Decision>,
}

impl MergeOutcome {
    /// Whether the result is free of conflicts.
    pub fn is_clean(&self) -> bool {
        self.conflict_count == 0
    }
}

fn line_fallback(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
    reason: String,
) -> MergeOutcome {
    let lm = merge_lines(base, ours, theirs, &opts.markers);
    MergeOutcome {
        text: lm.text,
        conflict_count: lm.conflicts,
        conflicts: Vec::new(),
        decisions: vec![Decision::FellBack {
            reason: reason.clone(),
        }],
        method: Method::LineFallback(reason),
    }
}

/// Free parsed scenes of a big merge on another thread: freeing millions of small
/// allocations is a noticeable part of a big merge, and nothing needs to wait for it.
/// With `exit_after` (see [`MergeOptions::exit_after`]) they are not freed at all.
fn dispose<T: Send + 'static>(x: T, exit_after: bool) {
    if exit_after {
        std::mem::forget(x);
        return;
    }
    // If no thread can be started, the value comes back (inside the error) and is
    // dropped here.
    let _ = std::thread::Builder::new().spawn(move || drop(x));
}

/// Whether a merged text is a valid scene.
fn validates(text: &[u8]) -> Result<(), String> {
    let scene = Scene::parse(text).map_err(|e| format!("the merged text does not parse: {e}"))?;
    let verdict = judge(&scene);
    if text.len() > 1 << 20 {
        dispose(scene, false);
    }
    verdict
}

/// [`validates`] for a text given away, handed back when it is valid: the validating
/// parse then needs no copy of it (20 MB of fresh memory for a big scene). The sections
/// it shares with `like` (ours) are copied from ours' tree, not read again: the same
/// tree and model as reading them gives ([`Scene::from_text_like`]).
fn validates_owned(
    text: String,
    like: &Scene,
    spare: crate::syntax::Spare,
    exit_after: bool,
) -> Result<String, String> {
    let big = text.len() > 1 << 20;
    let mut scene = Scene::from_text_like_in(text, like, spare)
        .map_err(|e| format!("the merged text does not parse: {e}"))?;
    let verdict = judge(&scene);
    let text = std::mem::take(&mut scene.doc.text).into_string();
    if big {
        dispose(scene, exit_after);
    }
    verdict.map(|()| text)
}

/// What `check` says of a merged scene: `Err` with the first error when it is broken.
fn judge(scene: &Scene) -> Result<(), String> {
    let problems = check(scene);
    if is_broken(&problems) {
        let first = problems
            .iter()
            .find(|p| p.severity == crate::check::Severity::Error)
            .map(|p| format!("line {}: {}", p.line, shorten(&p.message, 300)))
            .unwrap_or_default();
        return Err(format!("the structural result would be broken ({first})"));
    }
    Ok(())
}

/// Parse the three inputs, two of them on a second thread: parsing is the largest single
/// cost of merging a big scene, and the three parses are independent.
fn parse_three<I: Input>(
    (base, ours, theirs): (&I, &I, &I),
) -> (
    Result<Scene, crate::model::ModelError>,
    Result<Scene, crate::model::ModelError>,
    Result<Scene, crate::model::ModelError>,
) {
    // Base first: ours and theirs copy the sections they share with it.
    let b = base.scene();
    let Ok(like) = &b else {
        return (b, ours.scene(), theirs.scene());
    };
    let total = base.as_ref().len() + ours.as_ref().len() + theirs.as_ref().len();
    // Small files: a thread costs more than it saves.
    if total < 256 * 1024 {
        let (o, t) = (ours.scene_like(like), theirs.scene_like(like));
        return (b, o, t);
    }
    let (o, t) = std::thread::scope(|s| {
        let other = s.spawn(|| theirs.scene_like(like));
        let o = ours.scene_like(like);
        match other.join() {
            Ok(t) => (o, t),
            // The parser does not panic on any input; if it ever did, parse here again
            // so that the panic surfaces where the caller can see it.
            Err(_) => (o, theirs.scene_like(like)),
        }
    });
    (b, o, t)
}

/// An input of [`merge`]: bytes the scene copies, or a [`Source`] it shares.
trait Input: AsRef<[u8]> + Sync {
    fn scene(&self) -> Result<Scene, crate::model::ModelError>;
    /// [`Input::scene`], copying the sections it shares with `like`.
    fn scene_like(&self, like: &Scene) -> Result<Scene, crate::model::ModelError>;
}

impl Input for &[u8] {
    fn scene(&self) -> Result<Scene, crate::model::ModelError> {
        Scene::parse(self)
    }
    fn scene_like(&self, like: &Scene) -> Result<Scene, crate::model::ModelError> {
        Scene::parse_like(self, like)
    }
}

impl Input for Source {
    fn scene(&self) -> Result<Scene, crate::model::ModelError> {
        Scene::parse_source(self)
    }
    fn scene_like(&self, like: &Scene) -> Result<Scene, crate::model::ModelError> {
        Scene::parse_source_like(self, like)
    }
}

/// Merge three versions of a scene or resource file.
pub fn merge(base: &[u8], ours: &[u8], theirs: &[u8], opts: &MergeOptions) -> MergeOutcome {
    merge_inputs((&base, &ours, &theirs), opts)
}

/// [`merge`] of inputs the caller keeps: the parsed scenes share their bytes instead of
/// copying them (a merge of three 20 MB scenes then holds 60 MB less).
pub fn merge_sources(
    base: &Source,
    ours: &Source,
    theirs: &Source,
    opts: &MergeOptions,
) -> MergeOutcome {
    merge_inputs((base, ours, theirs), opts)
}

fn merge_inputs<I: Input>(
    inputs @ (b_in, o_in, t_in): (&I, &I, &I),
    opts: &MergeOptions,
) -> MergeOutcome {
    let (base, ours, theirs) = (b_in.as_ref(), o_in.as_ref(), t_in.as_ref());
    let trivial = |text: &[u8]| MergeOutcome {
        text: text.to_vec(),
        conflict_count: 0,
        conflicts: Vec::new(),
        method: Method::Trivial,
        decisions: Vec::new(),
    };
    if ours == theirs || base == theirs {
        return trivial(ours);
    }
    if base == ours {
        return trivial(theirs);
    }
    let (mut b, mut o, mut t) = match parse_alike(inputs, opts) {
        Ok(scenes) => scenes,
        Err(out) => return out,
    };
    let mut structural = merge_scenes(&b, &o, &t, opts);
    let big = base.len() + ours.len() + theirs.len() > 1 << 20;
    let mut spare = crate::syntax::Spare::default();
    if big {
        // A syntax tree is a few large lists: freed at once even with `exit_after`, it
        // makes room for the validating parse (a 20 MB scene's tree is 27 MB). Ours'
        // is kept for that parse to copy from; theirs' lists (one of each, read in one
        // pass following base) are that parse's to fill, so that their pages, already
        // touched, are not given back and asked for again.
        spare = t.doc.take_spare();
        drop(std::mem::take(&mut b.doc.sections));
        dispose((b, t), opts.exit_after);
    }
    // Validate: the clean text itself, or ours' resolution of every conflict. Either is
    // given to the validating parse, and the clean text taken back.
    let exit_after = opts.exit_after;
    let verdict = match structural.take_ours.take() {
        Some(resolved) => validates_owned(resolved, &o, spare, exit_after).map(drop),
        None => validates_owned(std::mem::take(&mut structural.text), &o, spare, exit_after)
            .map(|text| structural.text = text),
    };
    if big {
        drop(std::mem::take(&mut o.doc.sections));
        dispose(o, opts.exit_after);
    }
    if let Err(reason) = verdict {
        return invalid_fallback((base, ours, theirs), opts, reason);
    }
    settle(structural, (base, ours, theirs), opts)
}

/// The three inputs parsed, or the line merge's outcome when one does not parse or they
/// are not all scenes or all resources.
#[allow(clippy::type_complexity)]
fn parse_alike<I: Input>(
    inputs @ (b_in, o_in, t_in): (&I, &I, &I),
    opts: &MergeOptions,
) -> Result<(Scene, Scene, Scene), MergeOutcome> {
    let (base, ours, theirs) = (b_in.as_ref(), o_in.as_ref(), t_in.as_ref());
    let parsed = parse_three(inputs);
    let (b, o, t) = match parsed {
        (Ok(b), Ok(o), Ok(t)) => (b, o, t),
        (b, o, t) => {
            let which = [("base", b.err()), ("ours", o.err()), ("theirs", t.err())]
                .into_iter()
                .find_map(|(n, e)| {
                    e.map(|e| {
                        format!(
                            "{n} does not parse: {}",
                            e.to_string().lines().next().unwrap_or("")
                        )
                    })
                })
                .unwrap_or_default();
            return Err(line_fallback(base, ours, theirs, opts, which));
        }
    };
    if b.kind != o.kind || o.kind != t.kind {
        return Err(line_fallback(
            base,
            ours,
            theirs,
            opts,
            "the three versions are not all scenes or all resources".into(),
        ));
    }
    Ok((b, o, t))
}

/// The line merge for `reason` (the structural merge ran out of time, or failed), checked
/// as every fallback is: a clean line merge of two valid sides that is itself broken is a
/// conflict of the whole file.
pub fn checked_line_merge(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
    reason: String,
) -> MergeOutcome {
    invalid_fallback((base, ours, theirs), opts, reason)
}

/// The line merge in place of a structural result that does not validate (`reason`).
fn invalid_fallback(
    (base, ours, theirs): (&[u8], &[u8], &[u8]),
    opts: &MergeOptions,
    reason: String,
) -> MergeOutcome {
    let mut out = line_fallback(base, ours, theirs, opts, reason);
    // A clean line merge of two valid sides that is itself broken must not be
    // called clean: git then leaves the file unmerged for a person to look at.
    if out.conflict_count == 0 && validates(ours).is_ok() && validates(theirs).is_ok() {
        if let Err(why) = validates(&out.text) {
            out.conflict_count = 1;
            out.conflicts.push(ConflictReport {
                location: "whole file".into(),
                property: None,
                base: None,
                ours: None,
                theirs: Some(format!(
                    "the line merge has no markers but {}",
                    why.trim_start_matches("the structural result would be ")
                )),
            });
        }
    }
    out
}

/// The outcome of a valid structural result: itself when clean; with conflicts, a clean
/// line merge that validates wins (never worse than git).
fn settle(
    structural: Structural,
    (base, ours, theirs): (&[u8], &[u8], &[u8]),
    opts: &MergeOptions,
) -> MergeOutcome {
    if structural.conflicts.is_empty() {
        return MergeOutcome {
            text: structural.text.into_bytes(),
            conflict_count: 0,
            conflicts: Vec::new(),
            method: Method::Structural,
            decisions: structural.decisions,
        };
    }
    // Never worse than git: a clean line merge that validates beats a conflicted one.
    let lm = merge_lines(base, ours, theirs, &opts.markers);
    if lm.conflicts == 0 && !structural.line_merge_blind && validates(&lm.text).is_ok() {
        return MergeOutcome {
            text: lm.text,
            conflict_count: 0,
            conflicts: Vec::new(),
            method: Method::LineFallback("the line merge is clean and valid".into()),
            decisions: vec![Decision::FellBack {
                reason: format!(
                    "the line merge is clean and gives a valid scene, while the structural merge found {} conflict(s), the first in {}{}",
                    structural.conflicts.len(),
                    structural.conflicts[0].location,
                    structural.conflicts[0].property.as_deref().map(|p| format!(", {p}")).unwrap_or_default()
                ),
            }],
        };
    }
    MergeOutcome {
        text: structural.text.into_bytes(),
        // What the user finds in the file; a conflict always prints at least one.
        conflict_count: structural.hunks.max(1),
        conflicts: structural.conflicts,
        method: Method::Structural,
        decisions: structural.decisions,
    }
}

/// Output of the structural merge, before validation.
struct Structural {
    /// With conflict markers.
    text: String,
    /// Every conflict resolved to ours (used to validate the structure); `None` when
    /// there is no conflict, so that `text` is that already.
    take_ours: Option<String>,
    /// Conflict hunks as written (after git-style joining).
    hunks: usize,
    /// Conflicts, in file order.
    conflicts: Vec<ConflictReport>,
    /// Decisions.
    decisions: Vec<Decision>,
    /// A conflict rests on what a line merge cannot see (a NodePath to a node the other
    /// side deleted): a clean line merge must not win over it.
    line_merge_blind: bool,
}

/// The structural merge of three parsed scenes. Each phase is one call; conflicts and
/// decisions are logged in [`context::Ctx`] in the order the phases run:
///
/// 1. `identity/`: identities of nodes and resources across the three (with
///    [`resources::record_sub_matches`], sub_resources matched by content).
/// 2. `tree/`: per node, added, deleted, delete against modify, kept ([`nodes`]); the
///    renames and moves followed ([`paths`]); `[node]` lines ([`node_tags`]); node order.
/// 3. `values/`: `[resource]` and sub_resource contents, which resources stay
///    ([`resources`]); NodePaths and track paths follow moved nodes ([`nodepaths`],
///    [`track_paths`]).
/// 4. `ids/`: resource order and ids.
/// 5. `tree/` again for the sections hung on nodes ([`connections`], [`editables`]),
///    then `output/`: [`spelling`] (`parent=`, `from=`, `to=` that depend on the side
///    picked in a hunk), [`carried`], [`header`], and [`print`]: the text, and the text
///    with every conflict resolved to ours.
fn merge_scenes(b: &Scene, o: &Scene, t: &Scene, opts: &MergeOptions) -> Structural {
    let markers = &opts.markers;
    let named = shared::subs_named::SubsNamed::default();
    let mut ctx = context::Ctx::new([b, o, t], identity::match_all_sharing([b, o, t], &named));
    ctx.subs_named = named;
    identity::record_identity_decisions(&mut ctx);
    ctx.layout_policy = !opts.no_layout_policy;
    ctx.state_policy = !opts.saved_state_conflicts;
    saved_state::collect_driven(&mut ctx);
    resources::record_sub_matches(&mut ctx);
    let nodes::Nodes {
        mut merged,
        followed,
        path_needed,
    } = nodes::decide(&mut ctx);
    let paths = shared::merged::MergedPaths::of(&merged);
    paths::record_followed(&mut ctx, followed, &merged, &paths);
    node_tags::rebuild(&ctx, &mut merged, &paths);
    let node_order = order::nodes(&mut ctx, &merged);
    let mut resource = resources::merge_resource_section(&mut ctx);
    let mut subs = resources::merge_subs(&mut ctx);
    resources::keep_held_edits(&mut ctx, &mut merged, resource.as_mut(), &mut subs);
    let used = resources::used(&mut ctx, &merged, resource.as_ref(), &subs);
    nodepaths::follow_node_paths(&mut ctx, &mut merged, &paths);
    track_paths::follow_track_paths(&mut ctx, &mut subs, &paths);
    let mut ext_order = ids::order::exts(&ctx, &used.ext);
    let ext_ids = assign::ext_ids(&mut ctx, &ext_order);
    ids::order::exts_by_id(&ctx, &mut ext_order, &ext_ids);
    let users = ids::order::Users::of(&node_order, &merged, resource.as_ref(), &subs);
    let sub_order = ids::order::subs(&ctx, &used.sub, &used.sub_refs, &users);
    let sub_ids = assign::sub_ids(&mut ctx, &sub_order);
    ids::node_uids::renumber_theirs(&mut ctx, &mut merged);
    let (mut conn_out, conn_order) = connections::merge(&mut ctx, &paths);
    let (edit_out, edit_order) = editables::merge(&ctx, &paths);
    let mut parts = spelling::respell_under_conflicts(&mut ctx, &mut merged, &paths, &mut conn_out);
    carried::carry_subs(&mut ctx, &merged, &mut subs, &sub_ids, &mut parts.fields);
    let in_result = merged.iter().flatten().map(|m| &m.out).chain(subs.values());
    let header = header::merge(&mut ctx, ext_order.len() + sub_order.len(), in_result);
    let mut owned = vec![header];
    owned.extend(resources::ext_sections(&mut ctx, &ext_order));
    owned.extend(resources::sub_sections(&ctx, &sub_order, subs));
    owned.extend(resource);
    drop(paths);
    ctx.drop_lookups();
    let mut secs: Vec<&sections::OutSec> = owned.iter().collect();
    secs.extend(print::node_sections(
        &ctx,
        &node_order,
        &parts.waits,
        &mut merged,
    ));
    secs.extend(conn_order.iter().filter_map(|i| conn_out.get(i)));
    secs.extend(edit_order.iter().filter_map(|i| edit_out.get(i)));
    let printer = print::Printer {
        ctx: &ctx,
        ext_ids: &ext_ids,
        sub_ids: &sub_ids,
        markers,
        godot3: o.is_godot3(),
        seps: print::ours_separators(&ctx),
        fields: &parts.fields,
    };
    let (text, nconf) = printer.print(&secs, false);
    // Without a conflict printed, resolving them to ours changes nothing.
    let take_ours = (nconf > 0).then(|| printer.print(&secs, true).0);
    let sides = [o.doc.text.as_str(), t.doc.text.as_str()];
    let (text, take_ours) = header::settle_both(&mut ctx.decisions, text, take_ours, sides);
    ctx.conflicts_in_file_order(&node_order, &sub_order);
    Structural {
        text,
        take_ours,
        hunks: nconf,
        conflicts: ctx.conflicts,
        decisions: ctx.decisions,
        line_merge_blind: path_needed,
    }
}

#[cfg(test)]
mod tests;
