"""Where models come from and where they live: the manifest, the user cache, install and verify."""

from lsp_server.model_store.manifest import ModelSpec, load_manifest
from lsp_server.model_store.paths import tandem_home

__all__ = ["ModelSpec", "load_manifest", "tandem_home"]
