#!/usr/bin/env python3
"""The peer: Python's mailbox + email parsing every message (headers, body) of
every mbox file given."""
import email.policy
import mailbox
import sys
from email.parser import BytesParser

parser = BytesParser(policy=email.policy.default)
n = 0
for path in sys.argv[1:]:
    for key, msg in mailbox.mbox(path, factory=None).iteritems():
        m = parser.parsebytes(msg.as_bytes())
        m.get("subject"), m.get("from"), m.get("date"), m.get("message-id")
        body = m.get_body(preferencelist=("plain",))
        if body is not None:
            try:
                body.get_content()
            except Exception:
                pass
        n += 1
print(n)
