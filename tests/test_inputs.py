#!/usr/bin/env python3
"""Every archive shape a researcher brings (docs/inputs.md).

News spools (group directories of numbered articles), Maildir (cur/, new/),
MH folders, .eml files, articles saved by rn ("Article N of GROUP:"), and
tar archives of any of them (plain, gzip, bzip2, xz): each file is one
message, never split, detected without --force; B news's Article-I.D. and
Posted fill Message-ID and date where RFC 1036's are missing; a cross-post
stored in several group directories is one message and its copies.  The
real ITS/Usenet articles of ../shared/corpora give the counts measured by
reading their bytes.

Run by meson (suite 'slow': it runs deja some hundred times and builds tarballs).
"""
import os
import sqlite3
import tarfile

import tap
from cli_helpers import FIXTURES, TMP, deja, fresh_db, needs, ok, tmp

CORPORA = os.path.join(os.environ["SOURCE_ROOT"], "..", "shared", "corpora")
ITS = os.path.join(CORPORA, "larsbrinkhoff__its-archives", "usenet")

# An article quoting a mail with its envelope: a spool file is one article.
QUOTING = ("Here is the note I was sent:\n\nFrom 9150618 Thu Apr 29 16:36:43 1993\n"
           "From: bob@ucbvax.UUCP\nSubject: the note\nDate: Thu, 29 Apr 93 16:30:00 EDT\n\n"
           "The note.\n\nFrom here on, my words.\n")


def article(n, groups, extra="", body=QUOTING):
    return ("Path: utzoo!decvax!ucbvax!ann\nFrom: ann@ucbvax.UUCP (Ann Example)\n"
            "Newsgroups: %s\nSubject: article %s\nMessage-ID: <%s@ucbvax.UUCP>\n"
            "Date: Thu, 29 Apr 93 17:%02d:00 EDT\n%s\n%s" % (groups, n, n, int(n) % 60, extra, body))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def rows(db, sql, *params):
    with sqlite3.connect(db) as c:
        return c.execute(sql, params).fetchall()


def make_spool():
    spool = tmp("spool")
    write(os.path.join(spool, "comp", "lang", "c", "1"), article("1", "comp.lang.c"))
    write(os.path.join(spool, "comp", "lang", "c", "2"), article("2", "comp.lang.c,comp.std.c"))
    write(os.path.join(spool, "comp", "std", "c", "7"), article("2", "comp.lang.c,comp.std.c"))
    # B news 2.10 as stored at utzoo: no Message-ID, no Date
    write(os.path.join(spool, "net", "mail", "40"),
          "Relay-Version: version B 2.10 5/3/83; site utzoo.UUCP\nPath: utzoo!sri-unix!ann\n"
          "From: ann@sri-unix.UUCP\nNewsgroups: net.mail\nSubject: old\nArticle-I.D.: sri-unix.1234\n"
          "Posted: Mon Apr  2 16:49:15 1984\n\n" + QUOTING)
    return spool


@tap.test
def a_news_spool_is_one_message_per_file():
    spool = make_spool()
    db = fresh_db("spool.db")
    r = ok("ingest", "--db", db, spool)
    assert "skipping" not in r.stderr, r.stderr
    # the cross-post stored under both groups (the same bytes, as a spool's
    # hard links are) is one message, stored once, posted to both groups
    assert "comp/std/c/7' has the same content as" in r.stderr, r.stderr
    assert rows(db, "SELECT count(*) FROM files") == [(3,)]
    # three files, three rows: none split at the quoted envelope
    assert rows(db, "SELECT count(*) FROM messages") == [(3,)]
    assert rows(db, "SELECT group_concat(g.name, ' ') FROM message_newsgroups mg JOIN newsgroups g"
                    " ON g.id = mg.newsgroup_id JOIN messages m ON m.id = mg.message_id"
                    " WHERE m.message_id = '2@ucbvax.UUCP' ORDER BY g.name") == [("comp.lang.c comp.std.c",)]
    # a copy that differs (another site's Path) is one message and a duplicate
    write(os.path.join(spool, "comp", "std", "c", "7"),
          article("2", "comp.lang.c,comp.std.c").replace("Path: utzoo!", "Path: mcvax!utzoo!"))
    ok("ingest", "-q", "--db", db, spool)
    assert rows(db, "SELECT count(*), count(duplicate_of) FROM messages") == [(4, 1)]
    assert rows(db, "SELECT message_id, date, flags FROM messages WHERE file_id ="
                    " (SELECT id FROM files WHERE path LIKE '%/net/mail/40')") == \
        [("1234@sri-unix.UUCP", "1984-04-02T16:49:15", "date-no-zone,b-news")]
    body = rows(db, "SELECT body FROM messages WHERE message_id = '1@ucbvax.UUCP'")[0][0]
    assert "From 9150618" in body and "my words" in body, body
    r = ok("scan", os.path.join(spool, "comp", "lang", "c", "1"))
    assert "1 messages" in r.stdout and "read as one message (a header block" in r.stdout, r.stdout


@tap.test
def maildir_mh_and_eml_whatever_files_begin_with():
    md = tmp("Maildir")
    env = "From ann@x.example Mon Jan  1 10:00:00 2001\n"
    for i, (folder, name) in enumerate((("cur", "1035478339.M1P1.host:2,S"), ("cur", "1035478340.M2P2.host:2,RS"),
                                        ("new", "1035478341.M3P3.host"))):
        text = ("From: Ann <ann@x.example>\nSubject: md %d\nMessage-ID: <md%d@x>\n"
                "Date: Mon, 1 Jan 2001 10:00:00 +0000\n\n" % (i, i)) + QUOTING
        write(os.path.join(md, folder, name), (env if i % 2 == 0 else "") + text)
    os.makedirs(os.path.join(md, "tmp"), exist_ok=True)
    mh = tmp("mh-inbox")
    for i in (1, 2, 10):
        write(os.path.join(mh, str(i)), "Return-Path: <b@x.example>\nFrom: B <b@x.example>\n"
              "Subject: mh %d\nMessage-ID: <mh%d@x>\n\n" % (i, i) + QUOTING)
    write(os.path.join(mh, ".mh_sequences"), "unseen: 10\n")
    eml = write(tmp("saved.eml"), "From: C <c@x.example>\nTo: d@x.example\nSubject: eml\n"
                "Message-ID: <eml@x>\n\n" + QUOTING)
    db = fresh_db("folders.db")
    ok("ingest", "-q", "--db", db, md, mh, eml)
    ids = sorted(m for (m,) in rows(db, "SELECT message_id FROM messages"))
    assert ids == ["eml@x", "md0@x", "md1@x", "md2@x", "mh10@x", "mh1@x", "mh2@x"], ids
    # the Maildir flags stay in the file's path
    assert rows(db, "SELECT count(*) FROM files WHERE path LIKE '%:2,RS'") == [(1,)]


@tap.test
def tarballs_of_every_compression():
    spool = make_spool()
    src = tmp("tar-src")
    md = os.path.join(src, "its-hackers")
    for i in range(5):
        write(os.path.join(md, "cur", "10354783%02d.M%dP1.host:2,S" % (i, i)),
              "From ann@x.example Mon Jan  1 10:00:00 2001\nFrom: Ann <ann@x.example>\n"
              "Subject: t%d\nMessage-ID: <t%d@x>\n\n" % (i, i) + QUOTING)
    write(os.path.join(src, "list.mbox"), open(os.path.join(FIXTURES, "sample", "comp.lang.c.mbox"),
                                                encoding="latin-1").read())
    for mode, ext in (("w", "tar"), ("w:gz", "tar.gz"), ("w:gz", "tgz"), ("w:bz2", "tar.bz2"),
                      ("w:xz", "tar.xz")):
        path = tmp("its." + ext)
        with tarfile.open(path, mode) as t:
            t.add(md, arcname="its-hackers")
            t.add(os.path.join(src, "list.mbox"), arcname="list.mbox")
            t.add(spool, arcname="spool")
        db = fresh_db("tar-%s.db" % ext)
        ok("ingest", "-q", "--db", db, path)
        # 5 Maildir messages, 6 of the mbox, 3 spool articles (the fourth
        # file the same bytes as another)
        assert rows(db, "SELECT count(*) FROM messages") == [(14,)], ext
        assert rows(db, "SELECT DISTINCT compression FROM files") == [("tar",)], ext
        assert rows(db, "SELECT count(*) FROM files WHERE path LIKE ?", path + "/%") == [(9,)], ext
        # an unchanged tarball read again changes nothing
        again = ok("ingest", "--db", db, path)
        assert "unchanged" in again.stderr and "0 files stored" in again.stderr, again.stderr


@tap.test
def a_tarball_bomb_is_refused():
    import io
    path = tmp("bomb.tar.gz")
    with tarfile.open(path, "w:gz") as t:
        data = b"\0" * (200 << 20)
        info = tarfile.TarInfo("big.mbox")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    db = fresh_db("bomb.db")
    r = deja("ingest", "--db", db, path)
    assert r.returncode == 1 and "compression bomb" in r.stderr, r.stderr


@tap.test
def the_real_its_usenet_articles():
    if not os.path.isdir(ITS):
        tap.skip("no ../shared/corpora")
    db = fresh_db("its.db")
    r = deja("ingest", "--db", db, ITS)
    assert r.returncode == 0, r.stderr
    # 194 files (EXPECTED.md): 1990-zsh is a search tool's dump, and
    # 2006-jeverett-teco a web page's text with no header at all (26 lines
    # of prose): both skipped with a note, as a folder's README is.
    assert "skipping '%s'" % os.path.join(ITS, "1990-zsh") in r.stderr
    assert "skipping '%s'" % os.path.join(ITS, "2006-jeverett-teco") in r.stderr
    assert rows(db, "SELECT count(*) FROM files") == [(192,)]
    # 2002-kstailey holds two articles; every other file one
    assert rows(db, "SELECT count(*) FROM messages") == [(193,)]
    assert rows(db, "SELECT count(*) FROM messages m JOIN files f ON f.id = m.file_id"
                    " WHERE f.path LIKE '%/2002-kstailey'") == [(2,)]
    # the nine files that open with headers are read as one article each
    saved = rows(db, "SELECT envelope, message_id FROM messages m JOIN files f ON f.id = m.file_id"
                     " WHERE f.path LIKE '%/1989-mrc-moon-phase'")
    assert saved == [("Article 717 of alt.folklore.computers:", "5123@blake.acs.washington.edu")], saved
    assert rows(db, "SELECT date FROM messages m JOIN files f ON f.id = m.file_id"
                    " WHERE f.path LIKE '%/1984-towson-simtel2-blurb'") == [("1984-04-02T21:49:15",)]
    # 1982 ARPANET mail dated as RFC 733 wrote it, "6 September 1982
    # 03:39-EDT": read, and no message is left without a date
    assert rows(db, "SELECT date, flags FROM messages m JOIN files f ON f.id = m.file_id"
                    " WHERE f.path LIKE '%/1982-wancho-kermit-available'") == [
        ("1982-09-06T07:39:00", "no-message-id")]
    assert rows(db, "SELECT count(*) FROM messages WHERE date IS NULL") == [(0,)]


# -- lists are groups --------------------------------------------------------

def list_message(n, header):
    return ("From a@b Mon Jan  1 10:00:00 2001\nFrom: A%d <a%d@x.example>\nSubject: s%d\n"
            "Message-ID: <l%d@x>\nDate: Mon, 1 Jan 2001 10:00:00 +0000\n%s\nbody\n\n" % (n, n, n, n, header))


@tap.test
def mailing_lists_are_groups():
    mbox = write(tmp("lists.mbox"), "".join([
        list_message(1, "List-Id: Jailhouse <Jailhouse-Dev.googlegroups.com>\n"),
        list_message(2, "X-Mailing-List: <linux-kernel@vger.kernel.org>\n"),
        list_message(3, "Mailing-List: list foo@lists.example.org; contact foo-help@lists.example.org\n"),
        list_message(4, "List-Post: <mailto:Bar@Lists.Example.org>\nList-Id: not an identifier\n"),
        list_message(5, "Newsgroups: comp.lang.c\nList-Id: <gateway.example.org>\n"),
        list_message(6, "")]))
    # pipermail months carry no List-Id: their folder names the list
    pm = tmp("pipermail")
    write(os.path.join(pm, "twisted-web", "2003-May.txt"), list_message(7, "").replace(
        "From a@b Mon", "From a7 at x.example  Mon"))
    write(os.path.join(pm, "twisted-web", "notes.txt"), list_message(8, ""))
    db = fresh_db("lists.db")
    ok("ingest", "-q", "--db", db, mbox, pm)
    groups = dict(rows(db, "SELECT m.message_id, g.name FROM messages m LEFT JOIN message_newsgroups mg"
                           " ON mg.message_id = m.id LEFT JOIN newsgroups g ON g.id = mg.newsgroup_id"))
    assert groups == {"l1@x": "jailhouse-dev.googlegroups.com", "l2@x": "linux-kernel@vger.kernel.org",
                      "l3@x": "foo@lists.example.org", "l4@x": "bar@lists.example.org",
                      "l5@x": "comp.lang.c", "l6@x": None, "l7@x": "twisted-web", "l8@x": None}, groups
    stats = ok("stats", "--db", db).stdout
    assert "newsgroups   6" in stats, stats
    out = ok("export", "-q", "--db", db, "--group", "twisted-web", "--fields", "message_id", "--format", "csv")
    assert out.stdout.split() == ["message_id", "l7@x"], out.stdout
    net = tmp("lists.graphml")
    ok("network", "-q", "--db", db, "--kind", "group", "--out", net)
    assert "jailhouse-dev.googlegroups.com" in open(net).read()


@tap.test
def the_twisted_lists_are_three_groups():
    root = os.path.join(CORPORA, "twisted__pipermail")
    if not os.path.isdir(root):
        tap.skip("no ../shared/corpora")
    db = fresh_db("twisted-lists.db")
    months = [os.path.join(root, lst, m) for lst, m in (("twisted-python", "2003-May.txt"),
                                                          ("twisted-web", "2004-April.txt"),
                                                          ("inheritance", "2004-August.txt"))
              if os.path.exists(os.path.join(root, lst, m))]
    assert len(months) >= 2, months
    ok("ingest", "-q", "--db", db, *months)
    per_group = dict(rows(db, "SELECT g.name, count(*) FROM message_newsgroups mg JOIN newsgroups g"
                              " ON g.id = mg.newsgroup_id GROUP BY g.name"))
    total = rows(db, "SELECT count(*) FROM messages")[0][0]
    assert sum(per_group.values()) == total and len(per_group) == len(months), per_group


# -- pipermail's "at" in the list's language ---------------------------------

def pipermail(local, word, host, name, n):
    return ("From %s %s %s  Mon Jan  1 10:00:00 2001\nFrom: %s %s %s (%s)\nSubject: s%d\n"
            "Message-ID: <pm%d@x>\nDate: Mon, 1 Jan 2001 10:00:00 +0000\n\nbody\n\n"
            % (local, word, host, local, word, host, name, n, n))


@tap.test
def pipermail_addresses_in_every_language():
    text = (pipermail("jane", "en", "example.org", "Jane Doe", 1) +            # Spanish
            pipermail("joao", "em", "exemplo.com.br", "=?iso-8859-1?q?Jo=E3o?=", 2) +  # Portuguese
            pipermail("anna", "szerint", "pelda.hu", "Anna", 3) +              # any word at all
            pipermail("bob", "at", "example.com", "Bob", 4) +
            # From does not repeat the envelope's words: nothing is made up
            "From carl en example.org  Mon Jan  1 10:00:00 2001\nFrom: carl chez example.org (Carl)\n"
            "Subject: s5\nMessage-ID: <pm5@x>\n\nbody\n\n")
    db = fresh_db("pipermail-lang.db")
    ok("ingest", "-q", "--db", db, write(tmp("lang.mbox"), text))
    got = rows(db, "SELECT message_id, from_addr, from_name, flags FROM messages ORDER BY id")
    assert got[0] == ("pm1@x", "jane@example.org", "Jane Doe", "from-munged"), got[0]
    assert got[1][1:3] == ("joao@exemplo.com.br", "Jo\u00e3o"), got[1]
    assert got[2][1] == "anna@pelda.hu" and got[3][1] == "bob@example.com", got
    assert got[4][1] is None and "bad-from" in got[4][3], got[4]


# -- masked senders: never an address made up -------------------------------

def masked(plain):
    local, host = plain.split("@")
    text = "%s sending from %s" % (local, host)
    return "".join("@" if c in "as." else "|" if c in "ilf" else c for c in text)


@tap.test
def masked_senders_are_keys_never_addresses():
    senders = [("Jane Doe", masked("jane.doe@example.org")),      # j@ne@doe @end|ng |rom ex@mp|e@org
               ("R Core", masked("r-core@r-project.org")),
               ("Jane Doe", "jane.doe@example.org"),               # the same person, in clear
               ("Other", "o|her@ex@mp|e.com")]                      # another scheme: '|' with '@'
    text = "".join("From x  Mon Jan  1 10:00:00 2001\nFrom: %s (%s)\nSubject: s%d\nMessage-ID: <k%d@x>\n\n"
                   "body\n\n" % (addr, name, i, i) for i, (name, addr) in enumerate(senders))
    db = fresh_db("masked.db")
    ok("ingest", "-q", "--db", db, write(tmp("masked.mbox"), text))
    got = rows(db, "SELECT from_addr, from_name, flags, author_id FROM messages ORDER BY id")
    assert got[0][:3] == ("j@ne@doe @end|ng |rom ex@mp|e@org", "Jane Doe", "no-date,from-masked"), got[0]
    assert got[1][0] == "r-core @end|ng |rom r-project@org" and "from-masked" in got[1][2], got[1]
    assert got[3][0] == "o|her@ex@mp|e.com" and "from-masked" in got[3][2], got[3]
    # every from_addr is either a plain address or the masked text as shown
    for addr, _, flags, _ in got:
        assert "from-masked" in flags or (addr.count("@") == 1 and "|" not in addr), (addr, flags)
    # the mask of jane.doe@example.org is exactly the first: one author,
    # whose address is the plain one
    assert got[0][3] == got[2][3] and got[1][3] != got[0][3], got
    assert rows(db, "SELECT address FROM authors WHERE id = ?", got[0][3]) == [("jane.doe@example.org",)]


# -- UUCP senders ------------------------------------------------------------

@tap.test
def uucp_bang_paths_are_addresses():
    senders = ["Ann Example <gatech!ann>", "decvax!ucbvax!gatech!ann (Ann Example)",
               "ihnp4!gatech!bob", "Yahoo! Team <team@yahoo.example>", "Carl <utzoo!carl>"]
    text = "".join("From x  Mon Jan  1 10:00:00 1985\nFrom: %s\nSubject: s%d\nMessage-ID: <u%d@x>\n\n"
                   "body\n\n" % (f, i, i) for i, f in enumerate(senders))
    db = fresh_db("uucp.db")
    ok("ingest", "-q", "--db", db, write(tmp("uucp.mbox"), text))
    got = rows(db, "SELECT from_addr, from_name, author_id FROM messages ORDER BY id")
    assert [g[:2] for g in got] == [("gatech!ann", "Ann Example"), ("decvax!ucbvax!gatech!ann", "Ann Example"),
                                    ("ihnp4!gatech!bob", None), ("team@yahoo.example", "Yahoo! Team"),
                                    ("utzoo!carl", "Carl")], got
    # the same user at the same last host, through other relays: one author
    assert got[0][2] == got[1][2] and len({g[2] for g in got}) == 4, got



@tap.test
def undeclared_charsets_agree_with_language():
    """Pipermail months carry no Content-Type: the charset deja chooses
    must give text without signs of mojibake, in a charset its language
    was written in (docs/text.md, "Charsets"); every such choice stays
    flagged."""
    needs("cld2")
    texts = [
        ("ca", "Hola a tots,\n\nPerò no sé què fer amb aquesta configuració. L'opció està desactivada.\n", "latin-1"),
        ("es", "¿Alguien sabe qué pasa con el módulo? ¡Gracias! Año 2001, niño, José.\n", "latin-1"),
        ("cs-latin2", "Dobrý den,\n\nnevím, jak nastavit server. Příkaz nefunguje a žádná chyba se nezobrazí. Děkuji.\n", "iso-8859-2"),
        # no byte of windows-1250 here reads as a sign in windows-1252: only the language tells
        ("cs-1250", "Dobrý den,\n\nnevím, jak nastavit server. Příkaz nefunguje a žádná chyba se nezobrazí. Děkuji, Šárka.\n", "windows-1250"),
        ("pl", "Cześć,\n\nnie wiem, jak skonfigurować serwer. Polecenie nie działa i żaden błąd się nie pojawia.\n", "iso-8859-2"),
        ("ru-koi8", "Привет,\n\nне знаю, как настроить сервер. Команда не работает, и никакой ошибки нет.\n", "koi8-r"),
        ("ru-1251", "Привет,\n\nне знаю, как настроить сервер. Команда не работает, и никакой ошибки нет.\n", "windows-1251"),
    ]
    path = tmp("undeclared.mbox")
    with open(path, "wb") as f:
        for key, text, charset in texts:
            f.write(("From x Mon Jan  1 00:00:00 2001\nFrom: a@b.example\nSubject: %s\nMessage-ID: <%s@u>\n"
                     "Date: Mon, 1 Jan 2001 10:00:00 +0000\n\n" % (key, key)).encode())
            f.write(text.encode(charset) + b"\n")
    db = fresh_db("undeclared.db")
    ok("ingest", "-q", "--db", db, path)
    got = {k: (cs, body, flags) for k, cs, body, flags in
           rows(db, "SELECT subject, charset, body, flags FROM messages")}
    expect = {"ca": "windows-1252", "es": "windows-1252", "cs-latin2": "iso-8859-2", "cs-1250": "windows-1250",
              "pl": "iso-8859-2", "ru-koi8": "koi8-r", "ru-1251": "windows-1251"}
    for key, text, _ in texts:
        charset, body, flags = got[key]
        assert (charset, body.strip()) == (expect[key], text.strip()), (key, charset, body)
        assert "charset-guessed" in flags, (key, flags)


def on_a_terminal(*args):
    """deja ARGS with stderr on a pseudo-terminal: (status, what it wrote)."""
    import pty
    import subprocess
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "DEJA_NO_PROGRESS"}
    p = subprocess.Popen([os.environ["DEJA"]] + list(args), stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(), out.decode("utf-8", "replace")


@tap.test
def one_live_line_on_a_terminal():
    """issue 36: on a terminal a long ingest shows one live line (files
    done of total, MiB, messages, rate), not a line per file; --verbose
    gives the per-file lines too; a log file sees what it always saw."""
    src = tmp("live")
    os.makedirs(src, exist_ok=True)
    sample = open(os.path.join(FIXTURES, "sample", "comp.lang.c.mbox"), encoding="latin-1").read()
    for n in range(6):
        write(os.path.join(src, "part%d.mbox" % n), sample.replace("@", "%d@" % n))
    db = fresh_db("live.db")
    status, text = on_a_terminal("ingest", "--db", db, src)
    assert status == 0, text
    assert "\r\x1b[Kdeja: 0/6 files" in text, repr(text[:400])
    assert "ingested '" not in text, text                      # no line per file
    assert "done in" in text and "6 files stored" in text, text
    assert "\x1b[K" in text.split("done in")[0]                  # the live line was erased first
    # after the files, the step under way (no count to show): said, then erased
    assert "deja: building the indexes and threading '%s'\u2026\r\x1b[K" % db in text, repr(text[-600:])
    assert "deja: finding the authors of '%s'\u2026" % db in text, repr(text[-600:])
    db = fresh_db("live-verbose.db")
    status, text = on_a_terminal("ingest", "--verbose", "--db", db, src)
    assert status == 0 and text.count("ingested '") == 6, text
    # not a terminal: no carriage return, a line per file
    db = fresh_db("live-log.db")
    r = ok("ingest", "--db", db, src)
    assert "\r" not in r.stderr and r.stderr.count("ingested '") == 6, r.stderr
    assert "\u2026" not in r.stderr and "threading '" not in r.stderr, r.stderr
    # merge: the same line, of shards
    out = fresh_db("live-merged.db")
    status, text = on_a_terminal("merge", "--db", out, db, tmp("live.db"))
    assert status == 0 and "0/2 shards" in text and "merged '" not in text, text
    assert "deja: building the indexes and threading '%s'\u2026" % out in text, repr(text[-600:])
    # catalog: the shards counted as each is opened and checked (most of
    # what is read of a shard alone), then the step over the set said
    shards = []
    for n in range(3):
        shards.append(fresh_db("live-shard%d.db" % n))
        ok("ingest", "-q", "--shard", str(n + 1), "--db", shards[-1], os.path.join(src, "part%d.mbox" % n))
    cat = fresh_db("live-catalog.db")
    status, text = on_a_terminal("catalog", "--db", cat, *shards)
    assert status == 0, text
    line = text.find("\r\x1b[Kdeja: 0/3 shards")
    phase = text.find("deja: taking the newsgroups, addresses and people's decisions of the shards\u2026")
    assert 0 <= line < phase < text.find("shards read in"), repr(text)
    # not a terminal: neither
    r = ok("catalog", "--db", fresh_db("live-catalog-log.db"), *shards)
    assert "\r" not in r.stderr and "\u2026" not in r.stderr and "shards read in" in r.stderr, r.stderr
    # a name's own escape sequences never reach the terminal, on that line either
    red = fresh_db("live-\x1b[31mred.db")
    status, text = on_a_terminal("merge", "--db", red, db)
    assert status == 0 and "building the indexes and threading" in text, text
    assert "\x1b[31m" not in text, repr(text)

if __name__ == "__main__":
    tap.main(TMP)
