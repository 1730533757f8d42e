#!/usr/bin/env python3
"""Reads a network file back with networkx, for tests/test_people.py.

    nx_read.py graphml|gml|gexf|pajek FILE

prints one JSON object: the networkx version, the nodes (id -> attributes)
and the edges ([source, target, attributes]).  Run under Debian's python3
with python3-networkx (2.8), the reader researchers on Debian 12 have.
"""
import json
import sys

import networkx as nx

fmt, path = sys.argv[1], sys.argv[2]
if fmt == "graphml":
    g = nx.read_graphml(path)
elif fmt == "gml":
    g = nx.read_gml(path)          # nodes keyed by label: deja's "a12"
elif fmt == "gexf":
    g = nx.read_gexf(path)
else:
    g = nx.read_pajek(path)
edges = [[s, t, {k: v for k, v in d.items()}] for s, t, d in g.edges(data=True)]
print(json.dumps({"version": nx.__version__, "graph": {k: str(v) for k, v in g.graph.items()},
                  "nodes": {n: {k: v for k, v in d.items()} for n, d in g.nodes(data=True)},
                  "edges": edges}, default=str))
