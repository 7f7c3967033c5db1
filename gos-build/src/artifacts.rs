//! Deterministic artifact types: what a skill reads and what it writes.
//!
//! Artifact types are short normalized names (`pdf`, `spreadsheet`, `geojson`, ...). They come
//! from, in order of preference (\[C\] `parse_skill_document`, with the reference's §7.18/§7.25
//! defects fixed):
//!
//! 1. explicit frontmatter `inputs`/`outputs` (`input`/`output`): each item maps to the known
//!    types it names, or to a normalized free-form type when it names none;
//! 2. body sections titled Input(s)/Output(s) (also Returns, Produces, Reads, Writes): the
//!    known types named in the section;
//! 3. prose: each sentence's known types, classified by the nearest verb before them (read,
//!    parse, load, import, ... -> input; write, export, generate, save, ... -> output), with
//!    `from X` as input and `to X`/`into X`/`as X` as output.
//!
//! A "Requirements" section is not read as inputs (pip requirements are not artifacts). Known
//! types are matched on whole words and on file extensions (`.stl`, `*.xlsx`).

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

/// Known artifact types: `(canonical type, words or extensions that name it)`. Multi-word
/// phrases are matched on word sequences.
///
/// A word that other fields use in another sense names its type only inside a phrase
/// (session 14, from read samples of io edges whose type came from prose): `waveform` (neural
/// recordings, circadian rhythms: `seismic waveform`), `fits` (the verb: `fits file`), `mesh`
/// (service mesh: `3d mesh`, `mesh file`), `sam` (Segment Anything: `sam file`), `nc`
/// (netcat: `nc file`), `checkpoint` (`model checkpoint`), `transcript` (RNA transcripts:
/// `meeting transcript`), `presentation` (antigen presentation: `slide deck`), `transcription`
/// (gene transcription: `speech transcription`). A declared `inputs`/`outputs` item that is one
/// of those words alone still names the type (the private table `DECLARED_WORDS`).
pub const VOCABULARY: &[(&str, &[&str])] = &[
    ("pdf", &["pdf", "pdfs"]),
    ("csv", &["csv", "csvs"]),
    ("tsv", &["tsv"]),
    (
        "spreadsheet",
        &[
            "xlsx",
            "xls",
            "xlsm",
            "excel",
            "spreadsheet",
            "spreadsheets",
            "workbook",
            "workbooks",
        ],
    ),
    (
        "word-document",
        &["docx", "word document", "word documents"],
    ),
    (
        "slides",
        &[
            "pptx",
            "powerpoint",
            "slide deck",
            "slide decks",
            "slides",
            "presentation deck",
            "presentation decks",
        ],
    ),
    ("json", &["json", "jsonl", "ndjson"]),
    ("yaml", &["yaml", "yml"]),
    ("xml", &["xml"]),
    ("html", &["html", "webpage", "web page"]),
    ("markdown", &["markdown"]),
    ("plain-text", &["txt", "plain text"]),
    (
        "container-image",
        &[
            "docker image",
            "container image",
            "docker images",
            "container images",
            "oci image",
        ],
    ),
    (
        "image",
        &[
            "png",
            "jpg",
            "jpeg",
            "tiff",
            "tif",
            "webp",
            "bmp",
            "image",
            "images",
            "screenshot",
            "screenshots",
            "photo",
            "photos",
        ],
    ),
    ("svg", &["svg"]),
    ("gif", &["gif", "gifs"]),
    (
        "video",
        &["mp4", "mov", "avi", "mkv", "webm", "video", "videos"],
    ),
    (
        "audio",
        &["wav", "mp3", "flac", "ogg", "m4a", "aac", "audio"],
    ),
    (
        "subtitles",
        &["srt", "vtt", "subtitle", "subtitles", "captions"],
    ),
    (
        "transcript",
        &[
            "audio transcription",
            "speech transcription",
            "video transcription",
            "meeting transcription",
            "text transcript",
            "text transcripts",
            "speech transcript",
            "speech transcripts",
            "transcript file",
            "transcript files",
            "meeting transcript",
            "meeting transcripts",
            "video transcript",
            "video transcripts",
            "audio transcript",
            "audio transcripts",
            "interview transcript",
            "interview transcripts",
            "call transcript",
            "call transcripts",
        ],
    ),
    ("geojson", &["geojson"]),
    ("shapefile", &["shapefile", "shapefiles", "shp"]),
    ("raster", &["geotiff", "dem", "raster"]),
    ("gpx", &["gpx"]),
    (
        "3d-mesh",
        &[
            "stl",
            "obj",
            "ply",
            "gltf",
            "glb",
            "3d mesh",
            "3d meshes",
            "triangle mesh",
            "triangle meshes",
            "polygon mesh",
            "polygon meshes",
            "mesh file",
            "mesh files",
        ],
    ),
    ("fasta", &["fasta", "fa"]),
    ("fastq", &["fastq"]),
    (
        "sequence-alignment",
        &[
            "bam",
            "sam file",
            "sam files",
            "sam format",
            "msa",
            "multiple sequence alignment",
        ],
    ),
    ("vcf", &["vcf"]),
    ("newick", &["newick", "phylogenetic tree"]),
    ("pdb", &["pdb", "mmcif"]),
    ("pcap", &["pcap", "pcapng", "packet capture"]),
    ("sql", &["sql"]),
    ("sqlite", &["sqlite"]),
    ("parquet", &["parquet"]),
    ("notebook", &["ipynb", "jupyter notebook"]),
    ("latex", &["latex", "tex", "bibtex", "bib"]),
    (
        "time-series",
        &["time series", "timeseries", "light curve", "light curves"],
    ),
    ("dataframe", &["dataframe", "dataframes"]),
    (
        "fits",
        &[
            "fits file",
            "fits files",
            "fits image",
            "fits images",
            "fits header",
            "fits headers",
            "fits table",
            "fits tables",
            "fits format",
        ],
    ),
    (
        "seismic-waveform",
        &[
            "mseed",
            "miniseed",
            "seismogram",
            "seismograms",
            "seismic waveform",
            "seismic waveforms",
            "seismic trace",
            "seismic traces",
            "seismic data",
        ],
    ),
    ("netcdf", &["netcdf", "nc file", "nc files"]),
    ("hdf5", &["hdf5", "h5"]),
    ("pddl", &["pddl"]),
    ("dockerfile", &["dockerfile"]),
    ("log", &["log file", "log files", "logs"]),
    ("email", &["email", "emails", "eml"]),
    ("calendar", &["ics", "icalendar"]),
    ("openapi", &["openapi", "swagger"]),
    ("protobuf", &["protobuf", "proto"]),
    ("sarif", &["sarif"]),
    (
        "model-checkpoint",
        &[
            "model checkpoint",
            "model checkpoints",
            "checkpoint file",
            "checkpoint files",
            "safetensors",
            "onnx",
        ],
    ),
];

/// Single words that name a type when they are a whole declared `inputs`/`outputs` item
/// (`outputs: [mesh]`), where they cannot mean anything else, though prose needs a phrase for
/// them ([`VOCABULARY`]'s note). `waveform` is not here: a neural or circadian skill may
/// declare waveforms too.
const DECLARED_WORDS: &[(&str, &str)] = &[
    ("mesh", "3d-mesh"),
    ("meshes", "3d-mesh"),
    ("fits", "fits"),
    ("sam", "sequence-alignment"),
    ("nc", "netcdf"),
    ("checkpoint", "model-checkpoint"),
    ("checkpoints", "model-checkpoint"),
    ("presentation", "slides"),
    ("presentations", "slides"),
    ("transcript", "transcript"),
    ("transcripts", "transcript"),
    ("transcription", "transcript"),
];

/// Verbs that mark what follows as an input.
const INPUT_VERBS: &[&str] = &[
    "read",
    "reads",
    "reading",
    "parse",
    "parses",
    "parsing",
    "load",
    "loads",
    "loading",
    "import",
    "imports",
    "ingest",
    "ingests",
    "open",
    "opens",
    "extract",
    "extracts",
    "accept",
    "accepts",
    "consume",
    "consumes",
    "take",
    "takes",
    "analyze",
    "analyzes",
    "analyse",
    "analyses",
    "process",
    "processes",
    "inspect",
    "inspects",
    "from",
    "given",
    "convert",
    "converts",
    "converting",
    "transform",
    "transforms",
];

/// Verbs that mark what follows as an output.
const OUTPUT_VERBS: &[&str] = &[
    "write",
    "writes",
    "writing",
    "export",
    "exports",
    "generate",
    "generates",
    "generating",
    "produce",
    "produces",
    "save",
    "saves",
    "saving",
    "create",
    "creates",
    "creating",
    "render",
    "renders",
    "output",
    "outputs",
    "emit",
    "emits",
    "build",
    "builds",
    "to",
    "into",
    "return",
    "returns",
    "make",
    "makes",
    "draw",
    "draws",
    "plot",
    "plots",
];

/// Lower-case words of `text` (runs of ASCII alphanumerics), with the extensions of
/// `name.ext`-like tokens split off so that `scan.stl` yields `scan`, `stl`.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect()
}

/// One vocabulary phrase: its words and its canonical type.
type Phrase = (Vec<&'static str>, &'static str);

/// [`VOCABULARY`]'s phrases keyed by their first word: `(words of the phrase, canonical
/// type)`, in vocabulary order, so a lookup visits only the phrases that can start at a word.
/// Built once; before it, [`mentions`] split all ~200 phrases for every word of the text
/// (60% of a real-library build's CPU time, docs/performance.md).
static PHRASES_BY_FIRST_WORD: LazyLock<HashMap<&'static str, Vec<Phrase>>> = LazyLock::new(|| {
    let mut map: HashMap<&'static str, Vec<Phrase>> = HashMap::new();
    for (canon, names) in VOCABULARY {
        for name in names.iter() {
            let parts: Vec<&'static str> = name.split(' ').collect();
            map.entry(parts[0]).or_default().push((parts, *canon));
        }
    }
    map
});

/// Known types named in `words`, with the word position of each mention. At each position
/// the longest phrase wins, and words inside a matched phrase start no other match, so
/// "docker image" is a container image and not an image. Among equally long phrases the first
/// in vocabulary order wins.
fn mentions(words: &[String]) -> Vec<(usize, &'static str)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut best: Option<(usize, &'static str)> = None;
        if let Some(candidates) = PHRASES_BY_FIRST_WORD.get(words[i].as_str()) {
            for (parts, canon) in candidates {
                if i + parts.len() <= words.len()
                    && parts.iter().enumerate().all(|(k, p)| words[i + k] == *p)
                    && best.is_none_or(|(len, _)| parts.len() > len)
                {
                    best = Some((parts.len(), *canon));
                }
            }
        }
        match best {
            Some((len, canon)) => {
                out.push((i, canon));
                i += len;
            }
            None => i += 1,
        }
    }
    out
}

/// Known types named anywhere in `text`, sorted and deduplicated.
pub fn known_types(text: &str) -> Vec<String> {
    let w = words(text);
    let set: BTreeSet<String> = mentions(&w)
        .into_iter()
        .map(|(_, t)| t.to_string())
        .collect();
    set.into_iter().collect()
}

/// Types of one explicit frontmatter I/O item: its known types, else a free-form type made
/// of its first four words joined by `-` (e.g. "phase picks" -> `phase-picks`).
pub fn explicit_item_types(item: &str) -> Vec<String> {
    let known = known_types(item);
    if !known.is_empty() {
        return known;
    }
    let w: Vec<String> = words(item).into_iter().take(4).collect();
    if let [one] = &w[..]
        && let Some((_, ty)) = DECLARED_WORDS.iter().find(|(word, _)| word == one)
    {
        return vec![ty.to_string()];
    }
    if w.is_empty() {
        Vec::new()
    } else {
        vec![w.join("-")]
    }
}

/// Input and output types found in prose, by the verb nearest before each mention (within 8
/// words of the same sentence). Mentions with no verb are ignored.
pub fn prose_types(text: &str) -> (Vec<String>, Vec<String>) {
    let mut inputs = BTreeSet::new();
    let mut outputs = BTreeSet::new();
    for sentence in text.split(['.', '!', '?', '\n', ';']) {
        let w = words(sentence);
        for (pos, canon) in mentions(&w) {
            let lo = pos.saturating_sub(8);
            let verb = (lo..pos).rev().find_map(|k| {
                let word = w[k].as_str();
                if INPUT_VERBS.contains(&word) {
                    Some(true)
                } else if OUTPUT_VERBS.contains(&word) {
                    Some(false)
                } else {
                    None
                }
            });
            match verb {
                Some(true) => {
                    inputs.insert(canon.to_string());
                }
                Some(false) => {
                    outputs.insert(canon.to_string());
                }
                None => {}
            }
        }
    }
    (inputs.into_iter().collect(), outputs.into_iter().collect())
}

/// Whether a section title declares inputs (`Input`, `Inputs`, `Reads`, `Consumes`, with an
/// optional suffix such as "Input files").
pub fn is_input_heading(title: &str) -> bool {
    let t = title.trim().to_ascii_lowercase();
    ["input", "inputs", "reads", "consumes", "takes"]
        .iter()
        .any(|h| t == *h || t.starts_with(&format!("{h} ")) || t.starts_with(&format!("{h}:")))
}

/// Whether a section title declares outputs (`Output`, `Outputs`, `Returns`, `Produces`,
/// `Writes`, `Results`).
pub fn is_output_heading(title: &str) -> bool {
    let t = title.trim().to_ascii_lowercase();
    [
        "output", "outputs", "returns", "produces", "writes", "result", "results",
    ]
    .iter()
    .any(|h| t == *h || t.starts_with(&format!("{h} ")) || t.starts_with(&format!("{h}:")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_types_match_words_extensions_and_phrases() {
        assert_eq!(
            known_types("Reads /root/scan.stl and a time series"),
            vec!["3d-mesh", "time-series"]
        );
        assert_eq!(
            known_types("an Excel workbook (.xlsx)"),
            vec!["spreadsheet"]
        );
        assert!(known_types("classification of stuff").is_empty());
        assert_eq!(
            known_types("push the Docker image"),
            vec!["container-image"]
        );
    }

    /// Words that other fields use in another sense name a type only inside a phrase (read
    /// samples: neural and circadian waveforms joined to seismic pickers, a service mesh to
    /// 3D meshes, "fits" the verb to astropy).
    #[test]
    fn ambiguous_words_name_a_type_only_in_a_phrase() {
        for text in [
            "asymmetric waveforms of circadian rhythms",
            "spike waveforms from Neuropixels probes",
            "a service mesh for Kubernetes",
            "the plan fits the budget",
            "segment objects with SAM",
            "pipe it through nc to a port",
            "save a checkpoint of the git state",
            "RNA transcripts per gene",
            "antigen presentation by MHC molecules",
            "gene transcription in yeast",
        ] {
            assert!(
                known_types(text).is_empty(),
                "{text}: {:?}",
                known_types(text)
            );
        }
        for (text, ty) in [
            ("read the seismic waveforms", "seismic-waveform"),
            ("load a miniseed file", "seismic-waveform"),
            ("a triangle mesh in STL", "3d-mesh"),
            ("open FITS files with astropy", "fits"),
            ("aligned reads in SAM format", "sequence-alignment"),
            ("write the model checkpoint", "model-checkpoint"),
            ("summarize the meeting transcript", "transcript"),
            ("build a slide deck", "slides"),
            ("speech transcription with whisper", "transcript"),
        ] {
            assert!(known_types(text).contains(&ty.to_string()), "{text}");
        }
    }

    #[test]
    fn prose_verbs_decide_direction() {
        let (i, o) =
            prose_types("Parses a binary STL file. Writes the result to an XLSX workbook.");
        assert_eq!(i, vec!["3d-mesh"]);
        assert_eq!(o, vec!["spreadsheet"]);
        let (i, o) = prose_types("Convert PDF documents to Markdown.");
        assert_eq!(i, vec!["pdf"]);
        assert_eq!(o, vec!["markdown"]);
    }

    #[test]
    fn explicit_items_fall_back_to_free_form() {
        assert_eq!(
            explicit_item_types("phase picks (P and S)"),
            vec!["phase-picks-p-and"]
        );
        assert_eq!(
            explicit_item_types("GeoJSON FeatureCollection"),
            vec!["geojson"]
        );
        // A declared item that is one ambiguous word alone names its type.
        assert_eq!(explicit_item_types("mesh"), vec!["3d-mesh"]);
        assert_eq!(explicit_item_types("Checkpoints"), vec!["model-checkpoint"]);
        assert_eq!(explicit_item_types("waveforms"), vec!["waveforms"]);
        assert!(is_input_heading("Inputs"));
        assert!(is_output_heading("Output files"));
        assert!(!is_input_heading("Requirements"));
    }
}
