"""Downloads against a local HTTP server on 127.0.0.1 (Range support); nothing else is contacted."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import random
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
    faults: list[str]


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
    t = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
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
    data = _zip({"XNLI-1.0/xnli.dev.tsv": b"zipdata" * 100})
    (server.root / "XNLI" / "XNLI-1.0.zip").write_bytes(data)
    (item,) = plan("xnli", [], cache=tmp_path, base_url=base(server))
    part = item.dest.with_name(item.dest.name + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(b"junk")
    assert fetch(item, progress=False).read_bytes() == data


def _zip(files: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, content in files.items():
            z.writestr(name, content)
    return buf.getvalue()


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
    with pytest.raises(XProbeError, match=r"^de-en\.tgz: corrupt or truncated \(not a tar archive"):
        fetch(item, progress=False)
    assert not item.dest.exists() and not item.unpack_to.exists()  # type: ignore[union-attr]
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


# --------------------------------------------------------------------------- a misbehaving server


class Misbehaving(http.server.BaseHTTPRequestHandler):
    """Serves ``server.root`` like RangeHandler, but the next entries of ``server.faults`` (one per
    request, then normal service) make it lie: ``short`` sends half the body under the full
    Content-Length and closes; ``nolength`` sends half the body with no Content-Length; ``long``
    announces more bytes than it sends; ``range0`` answers a Range request from byte 0 under a
    206; ``416`` refuses any Range with no total; ``416total`` refuses it with the true total;
    ``extra`` sends more than its Content-Range total (and no Content-Length)."""

    def do_GET(self) -> None:
        server: Server = self.server  # type: ignore[assignment]
        rng = self.headers.get("Range")
        server.requests.append((self.path, rng))
        fault = server.faults.pop(0) if server.faults else ""
        path = server.root / self.path.lstrip("/").split("?")[0]
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        start = int(rng.split("=")[1].split("-")[0]) if rng else 0
        if rng and (fault in ("416", "416total") or start >= len(data)):
            self.send_response(416)
            if fault != "416":
                self.send_header("Content-Range", f"bytes */{len(data)}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if rng:
            first = 0 if fault == "range0" else start
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {first}-{len(data) - 1}/{len(data)}")
            data = data[first:]
        else:
            self.send_response(200)
        if fault == "nolength":
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            return  # HTTP/1.0: closing the connection ends the body
        if fault == "extra":
            self.end_headers()
            self.wfile.write(data + b"bytes beyond the announced total")
            return
        announced = len(data) + 100 if fault == "long" else len(data)
        self.send_header("Content-Length", str(announced))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2] if fault == "short" else data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def bad_server(tmp_path: Path) -> Iterator[Server]:
    root = tmp_path / "www"
    root.mkdir()
    srv = Server(("127.0.0.1", 0), Misbehaving)
    srv.root = root
    srv.requests = []
    srv.faults = []
    t = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def serve(srv: Server, rel: str, data: bytes, tmp_path: Path) -> Item:
    (srv.root / rel).parent.mkdir(parents=True, exist_ok=True)
    (srv.root / rel).write_bytes(data)
    return Item(f"{base(srv)}/{rel}", tmp_path / "cache" / Path(rel).name)


def part_of(item: Item) -> Path:
    return item.dest.with_name(item.dest.name + ".part")


PAYLOAD = bytes(range(256)) * 400  # 102,400 bytes


@pytest.mark.parametrize(
    ("fault", "got", "announced"), [("short", 51200, 102400), ("long", 102400, 102500)]
)
def test_short_body_is_not_cached_and_resumes(
    bad_server: Server, tmp_path: Path, fault: str, got: int, announced: int
) -> None:
    item = serve(bad_server, "muse/en-de.txt", PAYLOAD, tmp_path)
    bad_server.faults = [fault]
    with pytest.raises(XProbeError, match=rf"incomplete: got {got} of {announced} bytes.*resume"):
        fetch(item, progress=False)
    assert not item.dest.exists()
    assert part_of(item).stat().st_size == got  # kept for the resume
    assert fetch(item, progress=False).read_bytes() == PAYLOAD
    assert bad_server.requests[-1][1] == f"bytes={got}-"


def test_short_body_on_resume_is_caught_too(bad_server: Server, tmp_path: Path) -> None:
    item = serve(bad_server, "other/x.dat", PAYLOAD, tmp_path)
    part_of(item).parent.mkdir(parents=True)
    part_of(item).write_bytes(PAYLOAD[:1000])
    bad_server.faults = ["short"]
    with pytest.raises(XProbeError, match="incomplete"):
        fetch(item, progress=False)
    assert not item.dest.exists()
    assert fetch(item, progress=False).read_bytes() == PAYLOAD


def test_content_range_from_elsewhere_is_refused(bad_server: Server, tmp_path: Path) -> None:
    item = serve(bad_server, "a/b.txt", PAYLOAD, tmp_path)
    part_of(item).parent.mkdir(parents=True)
    part_of(item).write_bytes(PAYLOAD[:5000])
    bad_server.faults = ["range0"]
    with pytest.raises(XProbeError, match=r"Content-Range bytes 0-.* asked for bytes 5000-"):
        fetch(item, progress=False)
    assert not item.dest.exists() and part_of(item).read_bytes() == PAYLOAD[:5000]


def test_416_is_whole_only_when_the_total_says_so(bad_server: Server, tmp_path: Path) -> None:
    item = serve(bad_server, "a/c.txt", PAYLOAD, tmp_path)
    part_of(item).parent.mkdir(parents=True)
    part_of(item).write_bytes(PAYLOAD[:5000])
    bad_server.faults = ["416"]  # a server that refuses ranges without saying the size
    assert fetch(item, progress=False).read_bytes() == PAYLOAD  # started again, not "whole"
    assert [r for _, r in bad_server.requests] == ["bytes=5000-", None]
    item.dest.unlink()
    part_of(item).write_bytes(PAYLOAD)  # a whole .part: 416 with the true total
    bad_server.faults = ["416total"]
    assert fetch(item, progress=False).read_bytes() == PAYLOAD


def test_oversize_part_never_enters_the_cache(bad_server: Server, tmp_path: Path) -> None:
    item = serve(bad_server, "a/d.txt", PAYLOAD, tmp_path)
    part_of(item).parent.mkdir(parents=True)
    part_of(item).write_bytes(PAYLOAD + b"garbage from another file")
    assert fetch(item, progress=False).read_bytes() == PAYLOAD
    assert not part_of(item).exists()


def test_dump_short_read_without_length_keeps_part_and_resumes(
    bad_server: Server, tmp_path: Path
) -> None:
    put_dump(bad_server, PAYLOAD)
    (item,) = plan("wikipedia", ["de"], cache=tmp_path, date="20190101", base_url=base(bad_server))
    bad_server.faults = ["", "nolength"]  # the checksum list, then a dump cut short
    with pytest.raises(XProbeError, match=r"checksum mismatch.*kept.*resume"):
        fetch(item, progress=False)
    assert part_of(item).stat().st_size == len(PAYLOAD) // 2
    assert fetch(item, progress=False).read_bytes() == PAYLOAD


def test_fetched_files_record_their_sha256(server: Server, tmp_path: Path) -> None:
    item = serve(server, "arrival/dictionaries/en-de.txt", PAYLOAD, tmp_path)
    path = fetch(item, progress=False)
    record = json.loads(path.with_name(path.name + ".fetched.json").read_text())
    assert record["sha256"] == hashlib.sha256(PAYLOAD).hexdigest()
    assert record["bytes"] == len(PAYLOAD) and record["url"] == item.url
    assert "size" in record["verified"]


def test_corrupt_zip_of_the_right_size_is_refused(bad_server: Server, tmp_path: Path) -> None:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("XNLI-1.0/xnli.dev.tsv", "x" * 5000)
    data = bytearray(buf.getvalue())
    data[2000] ^= 0xFF  # one flipped byte in the member: the CRC no longer matches
    (item,) = plan("xnli", [], cache=tmp_path, base_url=base(bad_server))
    (bad_server.root / "XNLI").mkdir()
    (bad_server.root / "XNLI" / "XNLI-1.0.zip").write_bytes(bytes(data))
    with pytest.raises(XProbeError, match=r"XNLI-1\.0\.zip.*corrupt.*xnli\.dev\.tsv"):
        fetch(item, progress=False)
    assert not item.dest.exists() and not part_of(item).exists()


def test_truncated_vectors_and_models_are_refused(bad_server: Server, tmp_path: Path) -> None:
    vec = b"3 2\na 1 2\nb 3 4\nc 5 6\n"
    item = serve(bad_server, "fasttext/vectors-wiki/wiki.xx.vec", vec[:-9], tmp_path)
    with pytest.raises(XProbeError, match=r"wiki\.xx\.vec.*header says 3 vectors.*2"):
        fetch(item, progress=False)
    assert not item.dest.exists()
    model = serve(bad_server, "udpipe/x.udpipe", b"not a model", tmp_path)
    with pytest.raises(XProbeError, match=r"x\.udpipe.*not a UDPipe model"):
        fetch(model, progress=False)
    assert not model.dest.exists()


def test_unpack_keeps_members_that_share_a_base_name(tmp_path: Path) -> None:
    from xprobe.download import unpack

    archive = tmp_path / "x.tgz"
    _tgz(archive, {"a/README": b"first\n", "b/README": b"second\n", "a/data.en": b"hello\n"})
    into = tmp_path / "out"
    written = unpack(archive, into)
    assert written == [into / "a" / "README", into / "b" / "README", into / "data.en"]
    assert (into / "a" / "README").read_bytes() == b"first\n"
    assert (into / "b" / "README").read_bytes() == b"second\n"
    assert unpack(archive, into) == written  # the marker lists the same files
    evil = tmp_path / "evil.tgz"
    _tgz(evil, {"../escape.txt": b"x"})
    with pytest.raises(XProbeError, match=r"evil\.tgz: member '\.\./escape\.txt' points outside"):
        unpack(evil, tmp_path / "out2")
    assert not (tmp_path / "escape.txt").exists()


def test_a_cached_file_changed_since_is_noticed(server: Server, tmp_path: Path) -> None:
    item = serve(server, "arrival/dictionaries/de-en.txt", PAYLOAD, tmp_path)
    path = fetch(item, progress=False)
    path.write_bytes(PAYLOAD[:10])
    with pytest.raises(XProbeError, match=r"de-en\.txt is 10 bytes, but 102400 were fetched"):
        fetch(item, progress=False)


def test_cli_short_download_is_one_line_and_exit_2(
    bad_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (bad_server.root / "XNLI").mkdir()
    (bad_server.root / "XNLI" / "XNLI-1.0.zip").write_bytes(_zip({"XNLI-1.0/a.tsv": PAYLOAD}))
    bad_server.faults = ["short"]
    argv = ["download", "xnli", "--cache-dir", str(tmp_path / "c"), "--base-url", base(bad_server)]
    assert cli_main([*argv, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "incomplete: got" in err[0] and "run again to resume" in err[0]
    assert not (tmp_path / "c" / "xnli" / "XNLI-1.0.zip").exists()
    assert cli_main([*argv, "--no-progress"]) == 0
    assert (tmp_path / "c" / "xnli" / "XNLI-1.0.zip").exists()


def test_more_bytes_than_the_announced_total_is_refused(bad_server: Server, tmp_path: Path) -> None:
    item = serve(bad_server, "a/e.txt", PAYLOAD, tmp_path)
    part_of(item).parent.mkdir(parents=True)
    part_of(item).write_bytes(PAYLOAD[:100])
    bad_server.faults = ["extra"]
    with pytest.raises(XProbeError, match=r"got 102432 bytes where 102400 were announced"):
        fetch(item, progress=False)
    assert not item.dest.exists() and not part_of(item).exists()
    assert fetch(item, progress=False).read_bytes() == PAYLOAD


def test_a_cached_file_without_a_record_is_checked_once(server: Server, tmp_path: Path) -> None:
    (item,) = plan("xnli", [], cache=tmp_path, base_url=base(server))
    item.dest.parent.mkdir(parents=True)
    whole = _zip({"XNLI-1.0/a.tsv": PAYLOAD})
    item.dest.write_bytes(whole[: len(whole) // 2])  # what an older xprobe let into the cache
    with pytest.raises(XProbeError, match=r"XNLI-1\.0\.zip: corrupt.*delete .* download again"):
        fetch(item, progress=False)
    item.dest.write_bytes(whole)
    assert fetch(item, progress=False) == item.dest and server.requests == []
    record = json.loads(item.dest.with_name("XNLI-1.0.zip.fetched.json").read_text())
    assert record["sha256"] == hashlib.sha256(whole).hexdigest() and "zip CRC" in record["verified"]


UD_TEST = (
    "# sent_id = 1\n# text = Sie liest.\n"
    "1\tSie\tsie\tPRON\t_\tCase=Nom|Number=Sing\t2\tnsubj\t_\t_\n"
    "2\tliest\tlesen\tVERB\t_\tTense=Pres\t0\troot\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_\n\n"
)


def _ud_release(path: Path) -> bytes:
    """A small UD release archive as LINDAT ships one: a top folder, treebank folders, files
    that share a base name (README.md, LICENSE.txt) in every treebank."""
    top = "ud-treebanks-v2.14"
    _tgz(path, {
        f"{top}/UD_Xxx-YYY/xx_yyy-ud-test.conllu": UD_TEST.encode(),
        f"{top}/UD_Xxx-YYY/README.md": b"# Xxx YYY\n",
        f"{top}/UD_Qtd-ZZZ/qtd_zzz-ud-dev.conllu": UD_TEST.encode(),
        f"{top}/UD_Qtd-ZZZ/README.md": b"# Qtd ZZZ\n",
    })  # fmt: skip
    return path.read_bytes()


UD_PATH = "repository/xmlui/bitstream/handle/11234/1-5502/ud-treebanks-v2.14.tgz"


def test_ud_release_plan_urls_and_errors(tmp_path: Path) -> None:
    (item,) = plan("ud", [], cache=tmp_path, release="2.14")
    assert item.url == f"https://lindat.mff.cuni.cz/{UD_PATH}"
    assert item.dest == tmp_path / "ud" / "ud-treebanks-v2.14.tgz"
    assert item.unpack_to == tmp_path / "ud" / "ud-treebanks-v2.14" and item.keep_paths
    (other,) = plan("ud", [], cache=tmp_path, release="2.99", url="http://m/x.tgz")
    assert other.url == "http://m/x.tgz" and other.dest.name == "ud-treebanks-v2.99.tgz"
    with pytest.raises(XProbeError, match=r"release 2\.99 is not in xprobe's table.*--url"):
        plan("ud", [], cache=tmp_path, release="2.99")
    with pytest.raises(XProbeError, match="needs --release"):
        plan("ud", [], cache=tmp_path)
    with pytest.raises(XProbeError, match="not a release number"):
        plan("ud", [], cache=tmp_path, release="../2.14", url="http://m/x.tgz")
    with pytest.raises(XProbeError, match="for `download ud` only"):
        plan("xnli", [], cache=tmp_path, release="2.14")


def test_ud_release_is_fetched_and_unpacked_with_its_folders(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (server.root / UD_PATH).parent.mkdir(parents=True)
    _ud_release(server.root / UD_PATH)
    cache = tmp_path / "c"
    argv = ["download", "ud", "--release", "2.14", "--cache-dir", str(cache)]
    assert cli_main([*argv, "--base-url", base(server), "--no-progress"]) == 0
    release = cache / "ud" / "ud-treebanks-v2.14"
    assert capsys.readouterr().out.strip() == str(release)
    assert (release / "UD_Xxx-YYY" / "xx_yyy-ud-test.conllu").read_text() == UD_TEST
    assert (release / "UD_Qtd-ZZZ" / "README.md").read_text() == "# Qtd ZZZ\n"
    record = json.loads((cache / "ud" / "ud-treebanks-v2.14.tgz.fetched.json").read_text())
    assert record["sha256"] == hashlib.sha256((server.root / UD_PATH).read_bytes()).hexdigest()
    assert "size" in record["verified"]
    n = len(server.requests)
    assert cli_main([*argv, "--base-url", base(server), "--no-progress"]) == 0
    assert len(server.requests) == n  # cached and unpacked: nothing fetched again


def test_ud_release_interrupted_transfer_resumes(bad_server: Server, tmp_path: Path) -> None:
    data = _ud_release(tmp_path / "ud.tgz")
    (bad_server.root / UD_PATH).parent.mkdir(parents=True)
    (bad_server.root / UD_PATH).write_bytes(data)
    (item,) = plan("ud", [], cache=tmp_path / "c", release="2.14", base_url=base(bad_server))
    bad_server.faults = ["short"]
    half = len(data) // 2
    with pytest.raises(XProbeError, match=rf"incomplete: got {half} of {len(data)} bytes"):
        fetch(item, progress=False)
    assert not item.dest.exists() and not item.unpack_to.exists()  # type: ignore[union-attr]
    assert part_of(item).stat().st_size == half
    release = fetch(item, progress=False)
    assert bad_server.requests[-1][1] == f"bytes={half}-"
    assert item.dest.read_bytes() == data
    assert (release / "UD_Xxx-YYY" / "xx_yyy-ud-test.conllu").read_text() == UD_TEST


def test_ud_release_corrupt_archive_is_refused(bad_server: Server, tmp_path: Path) -> None:
    data = bytearray(_ud_release(tmp_path / "ud.tgz"))
    data[len(data) // 2] ^= 0xFF  # right size, wrong content: the gzip CRC or inflate fails
    (bad_server.root / UD_PATH).parent.mkdir(parents=True)
    (bad_server.root / UD_PATH).write_bytes(bytes(data))
    (item,) = plan("ud", [], cache=tmp_path / "c", release="2.14", base_url=base(bad_server))
    with pytest.raises(XProbeError, match=r"^ud-treebanks-v2\.14\.tgz: corrupt or truncated"):
        fetch(item, progress=False)
    assert not item.dest.exists() and not part_of(item).exists()
    assert not item.unpack_to.exists()  # type: ignore[union-attr]


def test_ud_release_member_climbing_out_is_refused(tmp_path: Path) -> None:
    from xprobe.download import unpack

    _tgz(tmp_path / "ud-treebanks-v2.14.tgz", {
        "ud-treebanks-v2.14/UD_Xxx-YYY/xx_yyy-ud-test.conllu": UD_TEST.encode(),
        "ud-treebanks-v2.14/../../evil.conllu": b"x",
    })  # fmt: skip
    with pytest.raises(XProbeError, match="points outside the archive; refused"):
        unpack(tmp_path / "ud-treebanks-v2.14.tgz", tmp_path / "into", keep_paths=True)
    assert not (tmp_path / "evil.conllu").exists() and not list(tmp_path.glob("into/**/*.conllu"))


def _big_ud_release(path: Path, n: int = 3) -> bytes:
    """A release of ``n`` treebanks of a few hundred KB each, varied enough that the gzip stream
    holds many deflate blocks (a one-byte flip in a small archive fails inflate at once; in a big
    one tarfile used to stop at the first invalid header and never read the gzip CRC)."""
    rng = random.Random(43)
    words = [f"w{k}" for k in range(3000)]
    files = {}
    for t in range(n):
        lines = []
        for s in range(1500):
            toks = rng.choices(words, k=rng.randint(3, 12))
            lines.append(f"# sent_id = {t}-{s}")
            for i, w in enumerate(toks, 1):
                head, rel = (0, "root") if i == 1 else (1, "dep")
                lines.append(f"{i}\t{w}\t{w}\tX\t_\t_\t{head}\t{rel}\t_\t_")
            lines.append("")
        files[f"ud-treebanks-v2.14/UD_X{t}-Y/x{t}_y-ud-test.conllu"] = "\n".join(lines).encode()
    _tgz(path, files)
    return path.read_bytes()


def test_a_flipped_byte_anywhere_or_a_cut_in_a_ud_archive_is_refused(tmp_path: Path) -> None:
    """Issue 43: a ``.tgz`` of the right size with one byte XOR 0xff at half its length was
    "verified: size, tar read through" and half unpacked. Every flip at 40 places across the
    archive (deflate blocks, the gzip trailer's CRC and length) and every cut is refused by the
    content check."""
    from xprobe.download.verify import ContentError, verify_content

    data = _big_ud_release(tmp_path / "good.tgz")
    assert verify_content(tmp_path / "good.tgz", "ud-treebanks-v2.14.tgz")
    bad = tmp_path / "bad.tgz"
    # gzip's header (mtime, the file's name) is covered by no checksum and holds no content: a
    # flip there leaves the content whole; every byte after it is checked
    header = data.index(b"\0", 10) + 1
    places = sorted({*range(header, len(data), len(data) // 37), len(data) // 2, len(data) - 8,
                     len(data) - 3})  # fmt: skip
    for at in places:
        flipped = bytearray(data)
        flipped[at] ^= 0xFF
        bad.write_bytes(bytes(flipped))
        with pytest.raises(ContentError, match="corrupt or truncated"):
            verify_content(bad, "ud-treebanks-v2.14.tgz")
    for cut in (len(data) // 3, len(data) - 8, len(data) - 1):
        bad.write_bytes(data[:cut])
        with pytest.raises(ContentError, match="corrupt or truncated"):
            verify_content(bad, "ud-treebanks-v2.14.tgz")


def test_a_corrupt_ud_archive_is_not_cached_and_the_right_one_replaces_it(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's reproduction end to end: served on 127.0.0.1 with one byte flipped at half its
    length, `download ud --release X --url URL` is one line, exit 2, nothing cached or unpacked;
    the right archive served afterwards is downloaded and unpacked whole."""
    data = _big_ud_release(tmp_path / "good.tgz")
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF
    served = server.root / "ud.tgz"
    served.write_bytes(bytes(flipped))
    cache = tmp_path / "c"
    argv = ["download", "ud", "--release", "2.99", "--url", f"{base(server)}/ud.tgz",
            "--cache-dir", str(cache), "--no-progress"]  # fmt: skip
    assert cli_main(argv) == 2
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("ERROR")]
    assert len(err) == 1 and "corrupt or truncated" in err[0], err
    assert not (cache / "ud" / "ud-treebanks-v2.99.tgz").exists()
    assert not (cache / "ud" / "ud-treebanks-v2.99").exists()
    served.write_bytes(data)
    assert cli_main(argv) == 0
    release = cache / "ud" / "ud-treebanks-v2.99"
    assert sorted(p.name for p in release.glob("UD_*/*.conllu")) == [
        "x0_y-ud-test.conllu", "x1_y-ud-test.conllu", "x2_y-ud-test.conllu"]  # fmt: skip


def _dead_pid() -> int:
    """The id of a process that has exited."""
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_bomb_and_a_full_disk_are_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43: a 1 MB archive unpacked to 1 GiB. The members' declared sizes are checked
    against the archive's size (at most 100x) and the free space before a byte is written."""
    import shutil as sh

    from xprobe.download import unpack

    bomb = tmp_path / "bomb.tgz"
    _tgz(bomb, {"zeros.bin": bytes(20 << 20)})  # 20 MB of zeros: about 20 KB compressed
    assert bomb.stat().st_size * 100 < 20 << 20
    with pytest.raises(XProbeError, match=r"bomb\.tgz: its members hold 21\.0 MB, \d+ times"):
        unpack(bomb, tmp_path / "into")
    assert not list((tmp_path / "into").rglob("*bin*"))
    fine = tmp_path / "fine.tgz"
    _big_ud_release(fine, n=1)
    real = sh.disk_usage

    def little(path: object) -> object:  # a file system with 1 KB free
        return real(path)._replace(free=1000)  # type: ignore[arg-type]

    monkeypatch.setattr(sh, "disk_usage", little)
    with pytest.raises(XProbeError, match=r"fine\.tgz: unpacking needs .* MB, .* has 0\.0 MB free"):
        unpack(fine, tmp_path / "into2")
    assert not list((tmp_path / "into2").rglob("*.conllu"))


def test_a_killed_unpacks_leftovers_are_removed_by_the_next(tmp_path: Path) -> None:
    """kill -9 during an unpack left a 226 MB ``.tmp`` in the release folder that reruns never
    removed: the next unpack removes temporary files of dead processes (a running one's stay)."""
    from xprobe.download import unpack

    archive = tmp_path / "ud-treebanks-v2.14.tgz"
    _ud_release(archive)
    into = tmp_path / "rel"
    dead = into / "UD_Xxx-YYY" / f".xx_yyy-ud-test.conllu.{_dead_pid()}.k2j3h4g5.tmp"
    alive = into / f".README.md.{os.getppid()}.abcd1234.tmp"
    for p in (dead, alive):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"half a member")
    unpack(archive, into, keep_paths=True)
    assert not dead.exists() and alive.exists()
    assert (into / "UD_Xxx-YYY" / "xx_yyy-ud-test.conllu").read_text() == UD_TEST


def test_an_unpack_of_another_archive_of_the_same_name_is_redone(tmp_path: Path) -> None:
    """The completion marker records the archive's SHA-256: after a corrupt copy's partial
    unpack (or one by an older xprobe, whose marker holds no checksum), the right archive of the
    same name is unpacked whole, not taken for done."""
    from xprobe.download import unpack

    archive = tmp_path / "ud-treebanks-v2.14.tgz"
    into = tmp_path / "rel"
    _tgz(archive, {"top/UD_A-B/a_b-ud-test.conllu": UD_TEST.encode(), "top/UD_A-B/x": b"1"})
    assert len(unpack(archive, into, keep_paths=True)) == 2
    _ud_release(archive)  # the right one, same name
    got = unpack(archive, into, keep_paths=True)
    assert (into / "UD_Qtd-ZZZ" / "qtd_zzz-ud-dev.conllu") in got
    marker = into / ".unpacked-ud-treebanks-v2.14.tgz"
    marker.write_text("UD_Xxx-YYY/README.md\n")  # an older xprobe's marker: names only
    (into / "UD_Qtd-ZZZ" / "README.md").unlink()
    unpack(archive, into, keep_paths=True)
    assert (into / "UD_Qtd-ZZZ" / "README.md").read_text() == "# Qtd ZZZ\n"


def test_a_cached_archive_recorded_by_the_older_tar_check_is_checked_again(
    server: Server, tmp_path: Path
) -> None:
    """A damaged archive that an older xprobe recorded as "tar read through" is read to its end
    when found in the cache: one line, delete and download again; nothing unpacked."""
    (item,) = plan("ud", [], cache=tmp_path / "c", release="2.14", base_url=base(server))
    item.dest.parent.mkdir(parents=True)
    data = bytearray(_big_ud_release(item.dest))
    data[len(data) // 2] ^= 0xFF
    item.dest.write_bytes(bytes(data))
    sha = hashlib.sha256(bytes(data)).hexdigest()
    old = {"url": item.url, "bytes": len(data), "sha256": sha,
           "verified": ["size", "tar read through"]}  # fmt: skip
    item.dest.with_name(item.dest.name + ".fetched.json").write_text(json.dumps(old))
    with pytest.raises(XProbeError, match=r"corrupt or truncated .*delete .* download again"):
        fetch(item, progress=False)
    assert not item.unpack_to.exists()  # type: ignore[union-attr]
    assert server.requests == []
