#!/usr/bin/env python3
"""Generates a deterministic Usenet-style mbox of about SIZE MiB.

usage: gen.py SIZE_MIB OUT.mbox   (prints the true message count)

Half the envelopes are Google Groups exports (From -digits), half RFC 4155
lines; threads with References, quoted replies with attributions,
signatures, RFC 2047 encoded names and subjects (adjacent B-words among
them), Latin-1 bodies with and without a declared charset, and prose body
lines starting with "From " (the trap: about 3.5% of messages) that a
liberal parser splits on.  Deterministic: the same size gives the same file.
"""
import base64
import random
import sys

WORDS = ("the of and to in is that for it as was with be by on not he this are or his from at "
         "which but have an they you were her she there been one all we their has would when if "
         "pointer array compiler standard kernel thread list memory function return value type "
         "struct macro question answer problem version release patch bug fix program source").split()
PROSE_FROM = ["From what I hear, {}.", "From 1997 to 2001 {}.", "From my experience {}.",
              "From the FAQ: {}.", "From here on, {}."]
NAMES = [("Alice Example", "alice@example.com"), ("Bob Smith", "bob@example.org"),
         ("J\u00fcrgen M\u00fcller", "juergen@example.de"), ("Fran\u00e7ois Dupont", "francois@example.fr"),
         ("Carol White", "carol@example.net"), ("Dave Brown", "dave@example.com"),
         ("Eve Black", "eve@example.edu"), ("Zo\u00eb Lang", "zoe@example.nl")]
GROUPS = ["comp.lang.c", "comp.std.c", "comp.unix.programmer", "alt.folklore.computers", "sci.math"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def sentence(r, n=None):
    return " ".join(r.choice(WORDS) for _ in range(n or r.randint(6, 16)))


def encoded_name(r, name):
    raw = name.encode("utf-8")
    if all(b < 128 for b in raw):
        return name
    cut = len(raw) // 2
    while cut < len(raw) and (raw[cut] & 0xC0) == 0x80:
        cut += 1
    a, b = base64.b64encode(raw[:cut]).decode(), base64.b64encode(raw[cut:]).decode()
    return "=?UTF-8?B?%s?= =?UTF-8?B?%s?=" % (a, b)


def message(r, i, threads):
    name, addr = r.choice(NAMES)
    t = r.random()
    parent = r.choice(threads) if threads and t < 0.6 else None
    msgid = "<%d.%d@news.example.com>" % (i, r.randint(1000, 9999))
    y, mo, d = r.randint(1985, 2012), r.randint(0, 11), r.randint(1, 28)
    hh, mm, ss = r.randint(0, 23), r.randint(0, 59), r.randint(0, 59)
    latin1 = r.random() < 0.15
    if r.random() < 0.5:
        env = "From -%d" % r.getrandbits(62)
    else:
        env = "From %s %s %s %2d %02d:%02d:%02d %d" % (addr, DAYS[r.randint(0, 6)], MONTHS[mo], d, hh, mm, ss, y)
    subject = parent[1] if parent else sentence(r, r.randint(3, 8)).capitalize()
    if parent and not subject.startswith("Re:"):
        subject = "Re: " + subject
    h = [env, "X-Google-Thread: %x,%x" % (r.getrandbits(32), r.getrandbits(32)),
         "Path: news.example.com!not-for-mail",
         "From: %s <%s>" % (encoded_name(r, name), addr),
         "Newsgroups: %s" % ",".join(r.sample(GROUPS, r.randint(1, 2))),
         "Subject: %s" % subject,
         "Date: %s, %d %s %d %02d:%02d:%02d %s" % (DAYS[r.randint(0, 6)], d, MONTHS[mo], y, hh, mm, ss,
                                                   r.choice(["+0000", "-0500", "+0100", "EST", "GMT"])),
         "Message-ID: %s" % msgid]
    if parent:
        h.append("References: %s" % " ".join(parent[2][-5:] + [parent[0]]))
    if latin1 and r.random() < 0.5:
        h.append("Content-Type: text/plain; charset=ISO-8859-1")
    body = []
    if parent:
        body.append("%s wrote:" % parent[3])
        body += ["> " + sentence(r) for _ in range(r.randint(2, 10))]
        body.append("")
    for _ in range(r.randint(1, 4)):
        body += [sentence(r) for _ in range(r.randint(2, 8))]
        body.append("")
    if r.random() < 0.035:
        body.insert(r.randint(0, len(body)), r.choice(PROSE_FROM).format(sentence(r, 5)))
    if latin1:
        body.append("Caf\u00e9 cr\u00e8me, na\u00efve fa\u00e7ade.")
    if r.random() < 0.5:
        body += ["-- ", name, "  " + sentence(r, 4)]
    text = "\n".join(h) + "\n\n" + "\n".join(body) + "\n\n"
    data = text.encode("latin-1" if latin1 else "utf-8", errors="replace")
    refs = (parent[2] + [parent[0]]) if parent else []
    threads.append((msgid, subject, refs, name))
    if len(threads) > 200:
        threads.pop(0)
    return data


def main():
    size = int(float(sys.argv[1]) * 1024 * 1024)
    r = random.Random(1997)
    threads, n, written = [], 0, 0
    with open(sys.argv[2], "wb") as out:
        while written < size:
            data = message(r, n, threads)
            out.write(data)
            written += len(data)
            n += 1
    print(n)


if __name__ == "__main__":
    main()
