//! Synthetic skill libraries for scale benchmarks: N skill packages drawn from a fixed
//! vocabulary ([`vocab`]), with planted prerequisite chains, near-duplicate distractors and
//! filler skills, plus labelled tasks whose oracle sets are the planted chains.
//!
//! Layout of one library (all choices come from a seeded [`SplitMix64`] stream, so a
//! `(skills, seed)` pair always gives byte-identical output; `below` rejects a draw only with
//! probability below `n / 2^64`, so libraries are the same as those of the earlier modulo
//! draw):
//!
//! - **chains** (about 40% of the skills): chains of 2 to 4 steps. Step `j` consumes the
//!   private artifact type `t_j` of its chain and produces `t_{j+1}`; the head consumes a
//!   common type (csv, json, ...). Private types are rare, so `gos build` links step `j` to
//!   step `j + 1` with an I/O dependency edge (overlap 1.0). A third of the non-head steps
//!   also say "use the `<previous>` skill" in their body (a mention edge).
//! - **distractors** (about 15%): near-duplicates of a chain step (same domain, verb and
//!   input, name with a variant suffix, a private output nobody consumes).
//! - **filler** (the rest): standalone skills with common input and output types.
//!
//! A task is written for each chain (up to [`SynthConfig::tasks`]): its instruction paraphrases
//! the last step's capability and names the chain's domain, and its oracle set is the whole
//! chain, so retrieving the prerequisites needs the graph.
//!
//! `gos synth` writes a library with [`write_library`]; the benchmarks (`benches/`) plan
//! libraries in memory. The crate depends on gos-core for the seeded random stream and on
//! gos-build for its artifact vocabulary (private chain types must be types the builder does
//! not recognize, so that `gos build` relates chain steps by them alone).

#![warn(missing_docs)]

pub mod bodies;
mod render;
pub mod vocab;
mod write;

pub use write::{WriteSummary, write_library};

use gos_core::rng::SplitMix64;
use serde::Serialize;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SynthConfig {
    /// Number of skill packages, at least 10.
    pub skills: usize,
    /// Seed of the random stream.
    pub seed: u64,
    /// Most tasks written (one per chain, chains in order).
    pub tasks: usize,
    /// How long the SKILL.md texts are.
    pub bodies: Bodies,
}

/// Lengths of the synthetic SKILL.md texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bodies {
    /// The structured sections alone (about 950 bytes a skill): fast to write and build.
    #[default]
    Short,
    /// Padded with Zipf-distributed filler prose to a length drawn from the real library's
    /// SKILL.md size distribution (mean about 8.4 KB; [`bodies`]). The text before the padding
    /// is the same as in [`Bodies::Short`], so edges, chains and tasks are unchanged.
    Real,
}

impl SynthConfig {
    /// `skills` packages from `seed`, 200 tasks at most.
    pub fn new(skills: usize, seed: u64) -> Self {
        SynthConfig {
            skills,
            seed,
            tasks: 200,
            bodies: Bodies::Short,
        }
    }
}

/// Why a skill is in the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Role {
    /// Step `step` (0-based) of planted chain `chain`.
    Chain {
        /// Chain index.
        chain: u32,
        /// Step in the chain.
        step: u8,
    },
    /// Near-duplicate of skill `of`.
    Distractor {
        /// Index of the imitated chain step.
        of: u32,
    },
    /// Standalone skill.
    Filler,
}

/// One planned skill package.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthSkill {
    /// Package id (folder name and frontmatter `name`).
    pub id: String,
    /// Folder relative to the library root: `synth-BBBB/<id>`.
    pub dir: String,
    /// Subject area.
    pub domain: &'static str,
    /// Capability verb.
    pub verb: &'static str,
    /// Main object.
    pub noun: &'static str,
    /// Qualifier.
    pub adjective: &'static str,
    /// Frontmatter `inputs` items.
    pub inputs: Vec<String>,
    /// Frontmatter `outputs` items.
    pub outputs: Vec<String>,
    /// Index of a skill named in the body ("use the `x` skill").
    pub mentions: Option<u32>,
    /// Why the skill exists.
    pub role: Role,
}

/// One labelled task in the shared task format (`id`, `instruction`, `oracle_skills`,
/// `oracle_dirs`, `keyword_queries`), as read by `gos eval`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SynthTask {
    /// Task id `synth-task-NNNNN`.
    pub id: String,
    /// Task text.
    pub instruction: String,
    /// Oracle skill ids, chain order (prerequisites first).
    pub oracle_skills: Vec<String>,
    /// Oracle folders relative to the library root.
    pub oracle_dirs: Vec<String>,
    /// Short keyword queries.
    pub keyword_queries: Vec<String>,
}

/// A planned library: skills and chains in memory, nothing written yet.
#[derive(Debug, Clone)]
pub struct SynthLibrary {
    /// The configuration it was planned from.
    pub config: SynthConfig,
    /// All skills; index = position.
    pub skills: Vec<SynthSkill>,
    /// Skill indices of each planted chain, head first.
    pub chains: Vec<Vec<u32>>,
}

/// Base-20 syllable word for `k` (at least three syllables), unique per `k`.
fn syllable_word(mut k: usize) -> String {
    let s = vocab::SYLLABLES;
    let mut out = String::new();
    for _ in 0..3 {
        out.push_str(s[k % s.len()]);
        k /= s.len();
    }
    while k > 0 {
        out.push_str(s[k % s.len()]);
        k /= s.len();
    }
    out
}

/// Base-36 suffix that keeps ids unique.
fn base36(mut k: usize) -> String {
    const D: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut v = Vec::new();
    loop {
        v.push(D[k % 36]);
        k /= 36;
        if k == 0 {
            break;
        }
    }
    v.reverse();
    String::from_utf8(v).expect("ascii digits")
}

/// Nouns that name none of the builder's known artifact types, so private chain types stay
/// free-form (and rare).
fn private_nouns() -> Vec<&'static str> {
    vocab::NOUNS
        .iter()
        .copied()
        .filter(|n| gos_build::artifacts::known_types(n).is_empty())
        .collect()
}

impl SynthLibrary {
    /// Plan a library. Cost: O(skills) time and memory (about 300 bytes a skill).
    ///
    /// # Panics
    /// When `config.skills < 10`.
    pub fn plan(config: SynthConfig) -> Self {
        assert!(
            config.skills >= 10,
            "a synthetic library needs at least 10 skills"
        );
        let n = config.skills;
        let mut rng = SplitMix64::new(config.seed);
        let nouns = private_nouns();
        let chain_budget = n * 2 / 5;
        let distractor_budget = n * 3 / 20;
        let mut skills: Vec<SynthSkill> = Vec::with_capacity(n);
        let mut chains: Vec<Vec<u32>> = Vec::new();
        let new_skill = |skills: &Vec<SynthSkill>,
                         rng: &mut SplitMix64,
                         domain: &'static str,
                         verb: &'static str,
                         role: Role| {
            let i = skills.len();
            let noun = *rng.pick(vocab::NOUNS);
            let adjective = *rng.pick(vocab::ADJECTIVES);
            let id = format!("{domain}-{verb}-{noun}-{}", base36(i));
            SynthSkill {
                dir: format!("synth-{:04}/{id}", i / 1000),
                id,
                domain,
                verb,
                noun,
                adjective,
                inputs: Vec::new(),
                outputs: Vec::new(),
                mentions: None,
                role,
            }
        };
        // Planted chains.
        while skills.len() + 4 <= chain_budget.max(4).min(n) {
            let c = chains.len();
            let len = 2 + rng.below(3);
            let domain = *rng.pick(vocab::DOMAINS);
            let types: Vec<String> = (0..=len)
                .map(|j| {
                    if j == 0 {
                        rng.pick(vocab::COMMON_TYPES).to_string()
                    } else {
                        format!("{} {}", syllable_word(c * 8 + j), rng.pick(&nouns))
                    }
                })
                .collect();
            let mut members = Vec::with_capacity(len);
            for j in 0..len {
                let verb = *rng.pick(vocab::VERBS);
                let mut s = new_skill(
                    &skills,
                    &mut rng,
                    domain,
                    verb,
                    Role::Chain {
                        chain: c as u32,
                        step: j as u8,
                    },
                );
                s.inputs = vec![types[j].clone()];
                s.outputs = vec![types[j + 1].clone()];
                if j > 0 && rng.chance(1.0 / 3.0) {
                    s.mentions = members.last().copied();
                }
                members.push(skills.len() as u32);
                skills.push(s);
            }
            chains.push(members);
        }
        // Near-duplicate distractors of chain steps.
        let chain_skills = skills.len();
        for _ in 0..distractor_budget.min(n - skills.len()) {
            if chain_skills == 0 {
                break;
            }
            let of = rng.below(chain_skills);
            let (domain, verb, inputs) = {
                let o = &skills[of];
                (o.domain, o.verb, o.inputs.clone())
            };
            let k = skills.len();
            let mut s = new_skill(
                &skills,
                &mut rng,
                domain,
                verb,
                Role::Distractor { of: of as u32 },
            );
            s.noun = skills[of].noun;
            s.id = format!(
                "{}-{}-{}",
                skills[of].id,
                rng.pick(&["lite", "v2", "legacy", "fast", "community"]),
                base36(k)
            );
            s.dir = format!("synth-{:04}/{}", k / 1000, s.id);
            s.inputs = inputs;
            s.outputs = vec![format!("{} {}", syllable_word(8 * n + k), rng.pick(&nouns))];
            skills.push(s);
        }
        // Filler.
        while skills.len() < n {
            let domain = *rng.pick(vocab::DOMAINS);
            let verb = *rng.pick(vocab::VERBS);
            let mut s = new_skill(&skills, &mut rng, domain, verb, Role::Filler);
            s.inputs = vec![rng.pick(vocab::COMMON_TYPES).to_string()];
            s.outputs = vec![rng.pick(vocab::COMMON_TYPES).to_string()];
            skills.push(s);
        }
        SynthLibrary {
            config,
            skills,
            chains,
        }
    }

    /// The planted relations as `(from, to)` skill indices: chain step `j` -> `j + 1`, chain
    /// step -> each of its distractor copies' successors' producer side (the distractor
    /// consumes the same input, so the step's producer also feeds it), and the mention
    /// edges (mentioned -> mentioning). These are the edges `gos build` is expected to
    /// induce; the graph-only benchmarks use them at sizes where building is too costly.
    pub fn planted_edges(&self) -> Vec<(u32, u32)> {
        let mut edges = Vec::new();
        for chain in &self.chains {
            for w in chain.windows(2) {
                edges.push((w[0], w[1]));
            }
        }
        for (i, s) in self.skills.iter().enumerate() {
            if let Role::Distractor { of } = s.role
                && let Role::Chain { chain, step } = self.skills[of as usize].role
                && step > 0
            {
                edges.push((self.chains[chain as usize][step as usize - 1], i as u32));
            }
            if let Some(m) = s.mentions {
                edges.push((m, i as u32));
            }
        }
        edges
    }

    /// One task per chain, at most `config.tasks`.
    pub fn tasks(&self) -> Vec<SynthTask> {
        let mut rng = SplitMix64::new(self.config.seed ^ 0x7a5c_5eed);
        self.chains
            .iter()
            .take(self.config.tasks)
            .enumerate()
            .map(|(t, chain)| render::task(self, t, chain, &mut rng))
            .collect()
    }

    /// The SKILL.md text of skill `i`.
    pub fn skill_markdown(&self, i: usize) -> String {
        render::skill_markdown(self, i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_deterministic_and_sized() {
        let a = SynthLibrary::plan(SynthConfig::new(1000, 7));
        let b = SynthLibrary::plan(SynthConfig::new(1000, 7));
        let c = SynthLibrary::plan(SynthConfig::new(1000, 8));
        assert_eq!(a.skills, b.skills);
        assert_ne!(a.skills, c.skills);
        assert_eq!(a.skills.len(), 1000);
        let chained: usize = a.chains.iter().map(Vec::len).sum();
        assert!((360..=400).contains(&chained), "{chained}");
        let ids: std::collections::HashSet<&str> = a.skills.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids.len(), 1000, "ids are unique");
        assert_eq!(a.skill_markdown(5), b.skill_markdown(5));
    }

    #[test]
    fn chain_types_are_private_free_form_types() {
        let lib = SynthLibrary::plan(SynthConfig::new(200, 1));
        for chain in &lib.chains {
            for w in chain.windows(2) {
                let (p, c) = (&lib.skills[w[0] as usize], &lib.skills[w[1] as usize]);
                assert_eq!(p.outputs, c.inputs);
                let types = gos_build::artifacts::explicit_item_types(&c.inputs[0]);
                assert_eq!(types.len(), 1);
                assert!(types[0].contains('-'), "free-form type {types:?}");
            }
        }
    }

    #[test]
    fn tasks_follow_the_chains() {
        let lib = SynthLibrary::plan(SynthConfig::new(500, 3));
        let tasks = lib.tasks();
        assert_eq!(tasks.len(), lib.chains.len().min(200));
        let t = &tasks[0];
        let chain = &lib.chains[0];
        assert_eq!(t.oracle_dirs.len(), chain.len());
        assert_eq!(t.oracle_dirs[0], lib.skills[chain[0] as usize].dir);
        assert!(!t.instruction.is_empty());
    }
}
