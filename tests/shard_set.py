"""The archives deja merge's and deja catalog's tests cut into shards
(test_merge.py, test_catalog.py): two group exports whose threads cross
(a reply in one file to a post in the other, a cross-post in both), Google
and RFC 4155 envelopes, people with several addresses, six languages, a zip
of Usenet groups (its members are two of the others, under other paths);
the searches both compare, and a decision people made."""
import os

from cli_helpers import FIXTURES

ZIP = os.path.join(FIXTURES, "compressed", "usenet.mbox.zip")
ARCHIVES = [os.path.join(FIXTURES, *p) for p in [
    ("threads", "comp.lang.c.mbox"),
    ("sample", "comp.lang.c.mbox"),
    ("people", "people.mbox"),
    ("analysis", "lists.mbox"),
    ("threads", "comp.std.c.mbox"),
    ("replies", "best-copy.mbox"),
    ("replies", "in-reply-to-forms.mbox"),
    ("search", "plain-words.mbox"),
]] + [ZIP, os.path.join(FIXTURES, "from", "y_google_export.mbox")]
QUERIES = ["the", "thread", "zyzzogeton", "quantum flux", "C++", "e-mail", "from:ann",
           "group:comp.std.c", "subject:re"]
# Addresses of one person, merged by a decision
MERGE_DECISION = ("--merge", "frank@one.example", "--merge", "fmiller@two.example")


def chunks(items, n):
    """@items cut into @n runs in order, the first ones longer by one."""
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (i < extra)
        out.append(items[start:end])
        start = end
    return out
