#!/usr/bin/env python3
"""Independent reference embeddings for gos's sentence encoder (the test constants of
gos-models/tests/it/dense_encoder.rs).

A float64 numpy forward pass of a BERT encoder read straight from model.safetensors, with the
sentence-transformers pipeline of all-MiniLM-L6-v2: Hugging Face `tokenizers` with padding to the
longest text of the batch and truncation at 256 tokens (overriding the Fixed(128) padding and
128 truncation that the shipped tokenizer.json asks for), mean pooling over the attention mask,
L2 normalization. No torch, no candle: nothing shared with the Rust implementation but the files.

Usage (numpy, safetensors and tokenizers from PyPI):
    python3 -m venv .venv && .venv/bin/pip install numpy safetensors tokenizers
    .venv/bin/python scripts/encoder_reference.py models/all-MiniLM-L6-v2
It prints, per sentence, the first 8 dimensions, the L2 norm of the unnormalized mean, and a
checksum (sum of dimension i times (i mod 7 + 1)), plus the cosine matrix.
"""
import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "The cat sits on the mat.",
    "A cat is sitting on a rug.",
    "Stock markets fell sharply on Monday.",
    "Share prices dropped at the start of the week.",
    "How do I bake sourdough bread?",
    # a long text: exercises truncation at 256 tokens (well past the shipped 128)
    " ".join(["Convert the shapefile to GeoJSON, reproject it to EPSG:4326 and render a choropleth."] * 30),
]


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x):
    # the exact (erf) GELU of BERT's "gelu" activation
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def forward(w, cfg, ids, types, mask):
    p = lambda k: w[k].astype(np.float64)
    n, t = ids.shape
    h = p("embeddings.word_embeddings.weight")[ids]
    h = h + p("embeddings.position_embeddings.weight")[np.arange(t)][None, :, :]
    h = h + p("embeddings.token_type_embeddings.weight")[types]
    eps = cfg["layer_norm_eps"]
    h = layer_norm(h, p("embeddings.LayerNorm.weight"), p("embeddings.LayerNorm.bias"), eps)
    heads = cfg["num_attention_heads"]
    d = cfg["hidden_size"] // heads
    bias = (1.0 - mask[:, None, None, :].astype(np.float64)) * np.finfo(np.float32).min
    for i in range(cfg["num_hidden_layers"]):
        a = f"encoder.layer.{i}."
        lin = lambda x, name: x @ p(a + name + ".weight").T + p(a + name + ".bias")
        split = lambda x: x.reshape(n, t, heads, d).transpose(0, 2, 1, 3)
        q = split(lin(h, "attention.self.query"))
        k = split(lin(h, "attention.self.key"))
        v = split(lin(h, "attention.self.value"))
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + bias
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(0, 2, 1, 3).reshape(n, t, heads * d)
        h = layer_norm(lin(ctx, "attention.output.dense") + h,
                       p(a + "attention.output.LayerNorm.weight"),
                       p(a + "attention.output.LayerNorm.bias"), eps)
        inter = gelu(lin(h, "intermediate.dense"))
        h = layer_norm(lin(inter, "output.dense") + h,
                       p(a + "output.LayerNorm.weight"), p(a + "output.LayerNorm.bias"), eps)
    return h


def main():
    model_dir = sys.argv[1] if len(sys.argv) > 1 else "models/all-MiniLM-L6-v2"
    cfg = json.load(open(f"{model_dir}/config.json"))
    w = load_file(f"{model_dir}/model.safetensors")
    w = {k[len("bert."):] if k.startswith("bert.") else k: v for k, v in w.items()}
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.enable_padding(pad_id=cfg.get("pad_token_id", 0), pad_token="[PAD]")  # batch longest
    tok.enable_truncation(max_length=256)
    enc = tok.encode_batch(SENTENCES)
    ids = np.array([e.ids for e in enc])
    types = np.array([e.type_ids for e in enc])
    mask = np.array([e.attention_mask for e in enc])
    print("tokens per text:", mask.sum(1).tolist(), "batch length:", ids.shape[1])
    h = forward(w, cfg, ids, types, mask)
    m = mask[:, :, None].astype(np.float64)
    mean = (h * m).sum(1) / m.sum(1)
    norms = np.linalg.norm(mean, axis=1)
    emb = mean / norms[:, None]
    weights = np.array([(i % 7) + 1 for i in range(emb.shape[1])], dtype=np.float64)
    for i, s in enumerate(SENTENCES):
        head = ", ".join(f"{x:.6f}" for x in emb[i, :8])
        print(f"[{i}] {s[:40]!r}\n    first8=[{head}]\n    checksum={emb[i] @ weights:.6f}")
    print("cosine matrix:")
    print(np.array2string(emb @ emb.T, precision=6, suppress_small=True))


if __name__ == "__main__":
    main()
