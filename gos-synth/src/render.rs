//! Text of synthetic SKILL.md files and tasks.

use crate::{Bodies, Role, SynthLibrary, SynthTask, bodies, vocab};
use gos_core::rng::SplitMix64;
use std::fmt::Write;

/// `word` with its first letter upper-cased.
fn capitalized(word: &str) -> String {
    let mut c = word.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Sentences of filler prose about a skill, drawn from `rng`.
fn prose(rng: &mut SplitMix64, domain: &str, noun: &str, sentences: usize) -> String {
    let mut out = String::new();
    for k in 0..sentences {
        let adj = rng.pick(vocab::ADJECTIVES);
        let other = rng.pick(vocab::NOUNS);
        let tool = rng.pick(vocab::TOOLS);
        let verb = rng.pick(vocab::VERBS);
        let s = match rng.below(5) {
            0 => format!("Each {adj} {noun} is checked against the {domain} {other} before use."),
            1 => format!(
                "The skill relies on {tool} to {verb} large {other} without loading everything into memory."
            ),
            2 => format!(
                "Rows that fail validation are kept in a separate {adj} {other} with the reason."
            ),
            3 => format!(
                "Typical {domain} teams run it nightly and compare the {noun} with the previous {other}."
            ),
            _ => format!(
                "Options control how the {adj} {other} is grouped and which fields are kept."
            ),
        };
        if k > 0 {
            out.push(' ');
        }
        out.push_str(&s);
    }
    out
}

/// The SKILL.md text of skill `i` of `lib`. Deterministic: the prose stream is seeded from
/// the library seed and the skill index.
pub(super) fn skill_markdown(lib: &SynthLibrary, i: usize) -> String {
    let s = &lib.skills[i];
    let mut rng = SplitMix64::new(
        lib.config.seed.rotate_left(17) ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d),
    );
    let input = &s.inputs[0];
    let output = &s.outputs[0];
    let variant = matches!(s.role, Role::Distractor { .. });
    let mut description = format!(
        "{} {} {} {} from {} and writes the {}.",
        capitalized(s.verb),
        s.adjective,
        s.domain,
        s.noun,
        input,
        output
    );
    if variant {
        description = format!("Variant: {description} Reduced feature set.");
    }
    let mut md = String::with_capacity(1600);
    let _ = writeln!(md, "---");
    let _ = writeln!(md, "name: {}", s.id);
    let _ = writeln!(
        md,
        "description: \"{description} Use when working with {} {}.\"",
        s.domain, s.noun
    );
    let _ = writeln!(md, "inputs:\n  - \"{input}\"");
    let _ = writeln!(md, "outputs:\n  - \"{output}\"");
    let _ = writeln!(md, "---\n");
    let _ = writeln!(
        md,
        "# {} {} {}\n",
        capitalized(s.verb),
        capitalized(s.domain),
        capitalized(s.noun)
    );
    let n_sentences = 3 + rng.below(4);
    let _ = writeln!(md, "{}\n", prose(&mut rng, s.domain, s.noun, n_sentences));
    let _ = writeln!(
        md,
        "## Inputs\n\n- {input}: the {} {} {} to {}.\n",
        s.adjective, s.domain, s.noun, s.verb
    );
    let _ = writeln!(
        md,
        "## Outputs\n\n- {output}: one entry per {} {}.\n",
        s.domain, s.noun
    );
    let tool = rng.pick(vocab::TOOLS);
    let _ = writeln!(
        md,
        "## Steps\n\n1. Load the {input} with `{tool}`.\n2. {} every {} {} and record problems.\n3. Write the {output} next to the input.\n",
        capitalized(s.verb),
        s.adjective,
        s.noun
    );
    if let Some(m) = s.mentions {
        let _ = writeln!(
            md,
            "Before this step, use the `{}` skill to prepare the {input}.\n",
            lib.skills[m as usize].id
        );
    }
    let _ = writeln!(
        md,
        "```bash\n{tool} --{} input > {}.out\n```",
        s.verb, s.noun
    );
    if lib.config.bodies == Bodies::Real {
        // A stream of its own, so the text above is the same in both modes.
        let mut pad = SplitMix64::new(
            lib.config.seed.rotate_left(29) ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        let target = bodies::real_size(pad.unit_f64());
        bodies::pad_to(&mut md, target, &mut pad);
    }
    md
}

/// Task `t` for `chain`: the last step's capability in other words, the chain's domain and
/// the head's input type; the oracle set is the whole chain.
pub(super) fn task(lib: &SynthLibrary, t: usize, chain: &[u32], rng: &mut SplitMix64) -> SynthTask {
    let head = &lib.skills[chain[0] as usize];
    let last = &lib.skills[*chain.last().expect("chains are non-empty") as usize];
    let opener = rng.pick(&[
        "We need to",
        "Please",
        "Set up a job to",
        "Write a script that will",
    ]);
    let instruction = format!(
        "{opener} {} the {} {} {} for the {} team, producing the {}. The raw data arrives as {} files in /data/{}.",
        last.verb,
        last.adjective,
        last.domain,
        last.noun,
        last.domain,
        last.outputs[0],
        head.inputs[0],
        head.domain
    );
    SynthTask {
        id: format!("synth-task-{t:05}"),
        instruction,
        oracle_skills: chain
            .iter()
            .map(|&i| lib.skills[i as usize].id.clone())
            .collect(),
        oracle_dirs: chain
            .iter()
            .map(|&i| lib.skills[i as usize].dir.clone())
            .collect(),
        keyword_queries: vec![
            format!("{} {} {}", last.verb, last.domain, last.noun),
            format!("{} {}", head.domain, head.inputs[0]),
        ],
    }
}
