#!/usr/bin/env python3
"""A Usenet-shaped mbox for timing deja groups and the networks of groups
and sites at scale (bench/README.md, "deja groups").

    bench/society.py N OUT.mbox

N articles over 20 years, 200 groups (a few large, most small: a Zipf
law), 20,000 authors (a few prolific), threads of geometric size with
References, one article in ten cross-posted, a Path of 2 to 6 of 300
sites, a link in one article in five.  Deterministic (seed 1).
"""
import itertools
import random
import sys

n, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(1)
groups = ["soc.g%03d" % i for i in range(200)]
gweights = list(itertools.accumulate(1.0 / (i + 1) for i in range(200)))
authors = ["p%05d" % i for i in range(20000)]
aweights = list(itertools.accumulate(1.0 / (i + 1) ** 0.8 for i in range(20000)))
sites = ["site%03d" % i for i in range(300)]
words = ("the of and to in a is that for it as was with be by on not he this are or his from at "
         "which but have an they you were her she there one all we map net news group site").split()
open_threads = []   # (message-id, groups, refs)
with open(out, "w") as f:
    for i in range(n):
        t = 631152000 + int(i * (20 * 365.25 * 86400) / n) + rng.randrange(3600)
        year, rest = divmod(t - 631152000, int(365.25 * 86400))
        day = rest // 86400
        month, dom = min(day // 31, 11) + 1, day % 28 + 1
        date = "%d %s %d %02d:%02d:%02d +0000" % (dom, ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
                                                       "Aug", "Sep", "Oct", "Nov", "Dec"][month - 1],
                                                  1990 + year, rest // 3600 % 24, rest // 60 % 60, rest % 60)
        author = rng.choices(authors, cum_weights=aweights)[0]
        refs = ""
        if open_threads and rng.random() < 0.6:
            parent, gs, prefs = open_threads[rng.randrange(len(open_threads))]
            refs = (prefs + " <%s>" % parent).strip()
            subject = "Re: topic"
        else:
            gs = [rng.choices(groups, cum_weights=gweights)[0]]
            if rng.random() < 0.1:
                gs.append(rng.choices(groups, cum_weights=gweights)[0])
            subject = "topic"
        mid = "b%d@bench.example" % i
        path = "!".join(rng.sample(sites, rng.randrange(2, 7))) + "!" + author
        body = " ".join(rng.choice(words) for _ in range(rng.randrange(10, 60)))
        if rng.random() < 0.2:
            body += " see http://www.%s.example.com/page%d" % (rng.choice(words), rng.randrange(100))
        f.write("From %s Mon Jan  1 00:00:00 1990\nPath: %s\nFrom: %s <%s@bench.example>\n"
                "Newsgroups: %s\nSubject: %s\nMessage-ID: <%s>\nDate: %s\n%s\n%s\n\n"
                % (author, path, author, author, ",".join(sorted(set(gs))), subject, mid, date,
                   "References: %s\n" % refs[-400:] if refs else "", body))
        open_threads.append((mid, gs, refs[-400:]))
        if len(open_threads) > 2000:
            open_threads.pop(rng.randrange(len(open_threads)))
