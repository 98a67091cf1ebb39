"""Downloads against a local HTTP server on 127.0.0.1 (Range support); nothing else is contacted."""

from __future__ import annotations

import hashlib
import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from xprobe.cli import main as cli_main
from xprobe.download import Item, cache_dir, fetch, plan
from xprobe.errors import XProbeError


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files from the server's ``root``, honouring ``Range: bytes=N-``; counts requests."""

    def do_GET(self) -> None:
        server: Server = self.server  # type: ignore[assignment]
        server.requests.append((self.path, self.headers.get("Range")))
        path = server.root / self.path.lstrip("/").split("?")[0]
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        rng = self.headers.get("Range")
        if rng and server.ranges:
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(data):
                self.send_error(416)
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            data = data[start:]
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class Server(http.server.ThreadingHTTPServer):
    root: Path
    ranges: bool = True
    requests: list[tuple[str, str | None]]


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback only: a proxy from the environment must not see these requests."""
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    root = tmp_path / "www"
    root.mkdir()
    srv = Server(("127.0.0.1", 0), RangeHandler)
    srv.root = root
    srv.requests = []
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def base(srv: Server) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}"


def put_dump(srv: Server, payload: bytes, listed: bytes | None = None) -> None:
    d = srv.root / "dewiki" / "20190101"
    d.mkdir(parents=True)
    (d / "dewiki-20190101-pages-articles.xml.bz2").write_bytes(payload)
    sha = hashlib.sha1(listed if listed is not None else payload).hexdigest()
    (d / "dewiki-20190101-sha1sums.txt").write_text(
        f"{'0' * 40}  dewiki-20190101-stub-articles.xml.gz\n"
        f"{sha}  dewiki-20190101-pages-articles.xml.bz2\n"
    )


def test_cache_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XPROBE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "xprobe"
    monkeypatch.setenv("XPROBE_CACHE", str(tmp_path / "env"))
    assert cache_dir() == tmp_path / "env"
    assert cache_dir(tmp_path / "flag") == tmp_path / "flag"


def test_plan_urls(tmp_path: Path) -> None:
    (item,) = plan("udpipe", ["de"], cache=tmp_path)
    assert item.url.endswith("/11234/1-3131/german-gsd-ud-2.5-191206.udpipe?sequence=1")
    assert item.dest == tmp_path / "udpipe" / "german-gsd-ud-2.5-191206.udpipe"
    (dump,) = plan("wikipedia", ["de"], cache=tmp_path, date="20190101", base_url="http://h")
    assert dump.url == "http://h/dewiki/20190101/dewiki-20190101-pages-articles.xml.bz2"
    assert dump.checksum_url == "http://h/dewiki/20190101/dewiki-20190101-sha1sums.txt"
    muse = plan("muse", ["de"], cache=tmp_path, muse_split="test")
    assert [i.url.rsplit("/", 1)[1] for i in muse] == ["en-de.5000-6500.txt", "de-en.5000-6500.txt"]
    (vec,) = plan("fasttext", ["de"], cache=tmp_path)
    assert vec.url.endswith("/vectors-wiki/wiki.de.vec")
    assert plan("xnli", [], cache=tmp_path)[0].dest.name == "XNLI-1.0.zip"
    with pytest.raises(XProbeError, match="needs --lang"):
        plan("udpipe", [], cache=tmp_path)


def test_download_verifies_checksum_and_completes_atomically(
    server: Server, tmp_path: Path
) -> None:
    payload = bytes(range(256)) * 1000
    put_dump(server, payload)
    cache = tmp_path / "cache"
    (item,) = plan("wikipedia", ["de"], cache=cache, date="20190101", base_url=base(server))
    path = fetch(item, progress=False)
    assert path.read_bytes() == payload
    assert not path.with_name(path.name + ".part").exists()
    n = len(server.requests)
    assert fetch(item, progress=False) == path and len(server.requests) == n  # cached


def test_resume_after_truncated_partial(server: Server, tmp_path: Path) -> None:
    payload = b"0123456789" * 5000
    put_dump(server, payload)
    (item,) = plan("wikipedia", ["de"], cache=tmp_path, date="20190101", base_url=base(server))
    part = item.dest.with_name(item.dest.name + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(payload[:12345])
    assert fetch(item, progress=False).read_bytes() == payload
    assert (item.url.split(base(server))[1], "bytes=12345-") in server.requests


def test_server_without_range_restarts(server: Server, tmp_path: Path) -> None:
    server.ranges = False
    (server.root / "XNLI").mkdir()
    (server.root / "XNLI" / "XNLI-1.0.zip").write_bytes(b"zipdata" * 100)
    (item,) = plan("xnli", [], cache=tmp_path, base_url=base(server))
    part = item.dest.with_name(item.dest.name + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(b"zipd")
    assert fetch(item, progress=False).read_bytes() == b"zipdata" * 100


def test_checksum_mismatch_is_an_error(server: Server, tmp_path: Path) -> None:
    put_dump(server, b"real bytes", listed=b"other bytes")
    (item,) = plan("wikipedia", ["de"], cache=tmp_path, date="20190101", base_url=base(server))
    with pytest.raises(XProbeError, match="checksum mismatch"):
        fetch(item, progress=False)
    assert not item.dest.exists()
    assert not item.dest.with_name(item.dest.name + ".part").exists()


def test_missing_file_and_offline(server: Server, tmp_path: Path) -> None:
    with pytest.raises(XProbeError, match="HTTP 404"):
        fetch(Item(base(server) + "/nope.bin", tmp_path / "nope.bin"), progress=False)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    item = Item(f"http://127.0.0.1:{port}/x.bin", tmp_path / "x.bin")
    with pytest.raises(XProbeError, match=r"cannot reach 127\.0\.0\.1.*offline"):
        fetch(item, progress=False)


def test_cli_download(server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (server.root / "arrival" / "dictionaries").mkdir(parents=True)
    for name in ("en-de.txt", "de-en.txt"):
        (server.root / "arrival" / "dictionaries" / name).write_text("haus house\n")
    argv = ["download", "muse", "--lang", "de", "--cache-dir", str(tmp_path / "c")]
    assert cli_main([*argv, "--base-url", base(server), "--no-progress"]) == 0
    assert (tmp_path / "c" / "muse" / "de-en.txt").read_text() == "haus house\n"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert cli_main(["download", "xnli", "--cache-dir", str(tmp_path / "d"),
                     "--base-url", f"http://127.0.0.1:{port}"]) == 2  # fmt: skip


def _tgz(path: Path, files: dict[str, bytes]) -> None:
    import io
    import tarfile

    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_parallel_corpora_are_fetched_and_unpacked_where_recipes_look(
    server: Server, tmp_path: Path
) -> None:
    import zipfile

    (server.root / "europarl" / "v7").mkdir(parents=True)
    _tgz(
        server.root / "europarl" / "v7" / "de-en.tgz",
        {"europarl-v7.de-en.de": b"Hallo Welt .\n", "europarl-v7.de-en.en": b"Hello world .\n"},
    )
    opus = server.root / "OPUS-MultiUN" / "v1" / "moses"
    opus.mkdir(parents=True)
    with zipfile.ZipFile(opus / "en-ru.txt.zip", "w") as z:
        z.writestr("MultiUN.en-ru.en", "Peace .\n")
        z.writestr("MultiUN.en-ru.ru", "Мир .\n")
        z.writestr("README", "about\n")
    cache = tmp_path / "cache"
    (de,) = plan("europarl", ["de"], cache=cache, base_url=base(server))
    (ru,) = plan("multiun", ["ru"], cache=cache, base_url=base(server))
    assert de.url.endswith("/europarl/v7/de-en.tgz") and ru.url.endswith("/en-ru.txt.zip")
    assert fetch(de, progress=False) == cache / "europarl" / "de-en"
    assert fetch(ru, progress=False) == cache / "multiun" / "en-ru"
    # the paths mapping/en-de.toml and mapping/en-ru.toml name
    assert (cache / "europarl/de-en/europarl-v7.de-en.en").read_text() == "Hello world .\n"
    assert (cache / "multiun/en-ru/MultiUN.en-ru.ru").read_text(encoding="utf-8") == "Мир .\n"
    # a second fetch neither downloads nor unpacks again
    n = len(server.requests)
    (cache / "europarl/de-en/europarl-v7.de-en.en").write_text("kept\n")
    fetch(de, progress=False)
    assert len(server.requests) == n
    assert (cache / "europarl/de-en/europarl-v7.de-en.en").read_text() == "kept\n"


def test_corrupt_archive_is_a_clear_error(server: Server, tmp_path: Path) -> None:
    (server.root / "europarl" / "v7").mkdir(parents=True)
    (server.root / "europarl" / "v7" / "de-en.tgz").write_bytes(b"not an archive")
    (item,) = plan("europarl", ["de"], cache=tmp_path, base_url=base(server))
    with pytest.raises(XProbeError, match="cannot unpack"):
        fetch(item, progress=False)
    with pytest.raises(XProbeError, match="pivot language"):
        plan("europarl", ["en"], cache=tmp_path)


def test_nli_corpora_unpack_without_macos_junk(server: Server, tmp_path: Path) -> None:
    import zipfile

    (server.root / "projects" / "snli").mkdir(parents=True)
    with zipfile.ZipFile(server.root / "projects" / "snli" / "snli_1.0.zip", "w") as z:
        z.writestr("snli_1.0/snli_1.0_dev.jsonl", '{"gold_label": "neutral"}\n')
        z.writestr("__MACOSX/snli_1.0/._snli_1.0_dev.jsonl", "junk")
    (item,) = plan("snli", [], cache=tmp_path, base_url=base(server))
    folder = fetch(item, progress=False)
    assert folder == tmp_path / "nli" / "snli_1.0"
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) == [
        "snli_1.0_dev.jsonl"
    ]
