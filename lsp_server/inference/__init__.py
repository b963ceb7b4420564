"""Local inference: ONNX Runtime decoder, tokenizer, and a generation loop that reuses the KV
cache of the previous request and verifies prompt-lookup drafts in one pass."""

from lsp_server.inference.engine import Engine, get_engine
from lsp_server.inference.generate import GenerationConfig, GenerationStats, Generator

__all__ = ["Engine", "get_engine", "GenerationConfig", "GenerationStats", "Generator"]
