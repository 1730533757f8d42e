#!/usr/bin/env python3
"""End-to-end tests of text extraction, `deja search` and `deja export`.

Ingests fixtures/text/ (one message per file: Latin-1 without a charset, a
wrong declared charset, base64 UTF-8, multipart/alternative with HTML,
HTML only, a digest, uuencoded and yEnc binaries, nested quotes with
attributions and a signature, a MIME attachment) and checks what a
researcher reads back.  Run by meson (suite 'cli').
"""
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile

import tap

DEJA = os.environ["DEJA"]
FIXTURES = os.environ["FIXTURES"]
TEXT = os.path.join(FIXTURES, "text")
TMP = tempfile.mkdtemp(prefix="deja-text-test-")
DB = os.path.join(TMP, "text.db")
N_FIXTURES = len([n for n in os.listdir(TEXT) if n.endswith(".mbox")])
# Most fixtures are one message; the sender and notice fixtures hold one
# message per case.  Each .expect lists its messages.
N_MESSAGES = sum(open(os.path.join(TEXT, n), encoding="utf-8").read().count("=== message\n")
                 for n in os.listdir(TEXT) if n.endswith(".expect"))


def deja(*args, raw=False):
    env = dict(os.environ, DEJA_NO_PROGRESS="1")
    r = subprocess.run([DEJA] + list(args), capture_output=True, env=env)
    if not raw:   # decode without newline translation (CSV ends lines in CRLF)
        r.stdout, r.stderr = r.stdout.decode(), r.stderr.decode()
    return r


def query(sql, *params, db=DB):
    with sqlite3.connect(db) as c:
        return c.execute(sql, params).fetchall()


def setup():
    r = deja("ingest", "--db", DB, TEXT)
    assert r.returncode == 0, r.stderr


@tap.test
def every_fixture_is_one_message():
    assert N_FIXTURES >= 10
    assert query("SELECT count(*) FROM messages")[0][0] == N_MESSAGES


@tap.test
def every_stored_text_is_valid_utf8():
    c = sqlite3.connect(DB)
    c.text_factory = bytes
    cols = ("subject", "from_name", "from_addr", "date_raw", "body", "own_text", "charset",
            "flags", "envelope", "message_id")
    n = 0
    for row in c.execute("SELECT %s FROM messages" % ", ".join(cols)):
        for name, v in zip(cols, row):
            if v is not None:
                v.decode("utf-8")      # raises on invalid UTF-8
                assert b"\0" not in v, name
                n += 1
    for (name,) in c.execute("SELECT filename FROM attachments WHERE filename IS NOT NULL"):
        name.decode("utf-8")
    assert n > N_FIXTURES * 5


def message(subject_like):
    rows = query("SELECT id, body, own_text, charset, flags, quoted_lines, own_lines,"
                 " attachment_count FROM messages WHERE subject LIKE ?", subject_like)
    assert len(rows) == 1, (subject_like, rows)
    return dict(zip(("id", "body", "own", "charset", "flags", "quoted", "own_lines",
                     "attachments"), rows[0]))


@tap.test
def latin1_without_charset_is_guessed_windows_1252():
    m = message("Re: cha%nes%")
    assert "Très simple" in m["body"] and "À bientôt" in m["own"]
    assert m["charset"] == "windows-1252"
    assert "charset-guessed" in m["flags"]


@tap.test
def wrong_declared_charset_is_overruled():
    m = message("Caf% meeting")
    assert "Zürich" in m["body"] and "naïve" in m["body"]
    assert m["charset"] == "utf-8" and "charset-guessed" in m["flags"]


@tap.test
def base64_utf8_part_is_decoded():
    m = message("Grüße")
    assert m["body"].startswith("Grüße aus München!\n")


@tap.test
def alternative_prefers_plain_and_drops_the_quote():
    m = message("Re: Conference dates")
    assert "<div" not in m["body"] and "São Paulo" in m["body"]
    assert m["own"] == "The dates work for me. See you in São Paulo.\n"
    assert m["quoted"] == 1


@tap.test
def html_only_message_becomes_text():
    m = message("Meeting notes")
    assert "html" in m["flags"]
    assert "alert(" not in m["body"] and "<" not in m["body"]
    assert "* Budget approved\n* Next meeting in June" in m["body"]
    assert "€120" in m["body"] and "“short”" in m["body"]


@tap.test
def digest_members_are_in_body_not_own_text():
    m = message("Vim Digest%")
    assert m["body"].count("----- Embedded message -----") == 2
    assert "relativenumber" in m["body"] and "relativenumber" not in m["own"]
    assert "embedded-messages" in m["flags"]


@tap.test
def binaries_are_attachments_not_text():
    rows = query("SELECT m.subject, a.filename, a.size, a.encoding, a.content_type"
                 " FROM attachments a JOIN messages m ON m.id = a.message_id ORDER BY a.id")
    found = {(r[1], r[2], r[3]) for r in rows}
    assert ("test.bin", 512, "uuencode") in found
    assert ("data.bin", 700, "yenc") in found
    assert ("minutes 2008-09.pdf", 1033, "mime") in found
    uu = message("test.bin%")
    assert "begin 644" not in uu["body"] and "Tell me if it decodes." in uu["own"]
    assert "uuencoded" in uu["flags"] and uu["attachments"] == 1


@tap.test
def own_text_drops_quotes_attributions_markers_and_signature():
    m = message("Re: Why is gets() dangerous?")
    assert m["own"] == "Exactly. Use fgets() instead.\n\nAnd never trust input lengths.\n"
    assert m["quoted"] == 8 and m["own_lines"] == 2


@tap.test
def fts_index_matches_the_messages():
    assert query("SELECT count(*) FROM messages_fts")[0][0] == N_MESSAGES
    query("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
    hits = query("SELECT m.subject FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
                 " WHERE messages_fts MATCH 'fgets'")
    assert hits == [("Re: Why is gets() dangerous?",)]


@tap.test
def search_table_marks_the_hit():
    r = deja("search", "--db", DB, "fgets")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout
    assert lines[0].startswith("1998-01-15T09:00:00  Henry Adams <henry@example.com>  Re: Why is gets()")
    assert "Use [fgets]() instead." in lines[1]


@tap.test
def search_stems_and_ignores_accents():
    r = deja("search", "--db", DB, "--format", "json", "cafe")
    hits = json.loads(r.stdout)
    assert [h["subject"] for h in hits] == ["Café meeting"], r.stdout
    assert isinstance(hits[0]["id"], int) and hits[0]["file"].endswith("wrong-charset.mbox")
    r = deja("search", "--db", DB, "--format", "json", "meetings")   # porter: meeting
    assert {h["subject"] for h in json.loads(r.stdout)} >= {"Café meeting", "Meeting notes"}


@tap.test
def search_tsv_has_header_and_escapes():
    r = deja("search", "--db", DB, "--format", "tsv", "tableau")
    rows = r.stdout.splitlines()
    assert rows[0].split("\t") == ["id", "date", "from_name", "from_addr", "subject", "snippet",
                                   "file", "byte_offset", "thread_id"]
    assert len(rows) == 2 and len(rows[1].split("\t")) == 9 and "\\n" in rows[1]


@tap.test
def search_filters_by_group_and_date():
    def subjects(*args):
        r = deja("search", "--db", DB, "--format", "json", *args)
        assert r.returncode == 0, r.stderr
        return [h["subject"] for h in json.loads(r.stdout)]
    assert subjects("tableau", "--group", "fr.comp.lang.c") == ["Re: chaînes de caractères"]
    assert subjects("tableau", "--group", "fr.*") == ["Re: chaînes de caractères"]
    assert subjects("tableau", "--group", "comp.*") == []
    assert subjects("tableau", "--since", "1997-11-17", "--until", "1997-11") == \
        ["Re: chaînes de caractères"]
    assert subjects("tableau", "--since", "1997-11-18") == []
    assert subjects("tableau", "--until", "1997-11-16") == []


@tap.test
def search_limit():
    r = deja("search", "--db", DB, "--format", "json", "--limit", "1", "the")
    assert len(json.loads(r.stdout)) == 1
    assert "first 1 matches" in r.stderr


@tap.test
def search_errors():
    # Plain words are words now; what is still malformed FTS5 is exit 2.
    r = deja("search", "--db", DB, "gets()")
    assert r.returncode == 0, r.stderr
    r = deja("search", "--db", DB, "fgets AND")
    assert r.returncode == 2 and "bad search query" in r.stderr, r.stderr
    r = deja("search", "--db", DB, "from:")
    assert r.returncode == 2 and "needs a value" in r.stderr, r.stderr
    r = deja("search", "--db", DB, "zzzunknownword")
    assert r.returncode == 0 and r.stdout == "" and "no messages match" in r.stderr
    r = deja("search", "--db", os.path.join(TMP, "missing.db"), "x")
    assert r.returncode == 1 and "missing.db" in r.stderr
    assert not os.path.exists(os.path.join(TMP, "missing.db"))
    r = deja("search", "--db", DB, "--since", "last week", "x")
    assert r.returncode == 2
    r = deja("search", "--db", DB)
    assert r.returncode == 2


@tap.test
def export_csv_reads_back_in_python():
    r = deja("export", "--db", DB)
    assert r.returncode == 0, r.stderr
    assert "\r\n" in r.stdout
    rows = list(csv.DictReader(io.StringIO(r.stdout, newline="")))
    assert len(rows) == N_MESSAGES
    bodies = dict(query("SELECT id, body FROM messages"))
    for row in rows:
        assert row["body"] == bodies[int(row["id"])]
    assert "own_text" in rows[0] and "newsgroups" in rows[0]


@tap.test
def export_jsonl_fields_and_filters():
    r = deja("export", "--db", DB, "--format", "jsonl", "--fields", "id,subject,newsgroups,flags",
             "--group", "alt.binaries.*")
    assert r.returncode == 0, r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    assert sorted(x["subject"] for x in recs) == ['"data.bin" yEnc (1/1)', "test.bin (1/1)"]
    assert all(list(x) == ["id", "subject", "newsgroups", "flags"] for x in recs)
    assert "alt.binaries.pictures.misc,alt.test" in [x["newsgroups"] for x in recs]
    r = deja("export", "--db", DB, "--format", "jsonl", "--fields", "subject", "--match", "vim")
    assert [json.loads(x)["subject"] for x in r.stdout.splitlines()] == ["Vim Digest, Vol 1, Issue 2"]


@tap.test
def export_out_file_appears_whole():
    out = os.path.join(TMP, "export.csv")
    r = deja("export", "--db", DB, "--out", out, "--fields", "id,date")
    assert r.returncode == 0, r.stderr and r.stdout == ""
    with open(out, newline="") as f:
        assert len(list(csv.reader(f))) == N_MESSAGES + 1
    assert [n for n in os.listdir(TMP) if ".tmp-" in n] == []
    r = deja("export", "--db", DB, "--out", os.path.join(TMP, "no", "such", "dir.csv"))
    assert r.returncode == 1 and "dir.csv" in r.stderr


@tap.test
def export_usage_errors():
    assert deja("export", "--db", DB, "--fields", "id,bogus").returncode == 2
    assert deja("export", "--db", DB, "--format", "xml").returncode == 2
    assert deja("export").returncode == 2


@tap.test
def reingest_keeps_search_consistent():
    db = os.path.join(TMP, "re.db")
    path = os.path.join(TMP, "yenc.mbox")
    shutil.copy(os.path.join(TEXT, "yenc.mbox"), path)
    assert deja("ingest", "--db", db, path).returncode == 0
    with open(path, "a") as f:
        f.write("\nA postscript about zeppelins.\n")
    assert deja("ingest", "--db", db, path).returncode == 0
    with open(path, "a") as f:
        f.write("\nAnd now about dirigibles.\n")
    assert deja("ingest", "--db", db, path).returncode == 0
    query("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')", db=db)
    assert query("SELECT count(*) FROM messages_fts", db=db)[0][0] == 1
    assert query("SELECT count(*) FROM attachments", db=db)[0][0] == 1
    r = deja("search", "--db", db, "--format", "json", "zeppelins AND dirigibles")
    assert len(json.loads(r.stdout)) == 1


if __name__ == "__main__":
    tap.main(TMP, setup)
