"""The same graph drawn by sigma.js (WebGL) instead of the page's cytoscape.js, to compare the two.

    npm pack sigma@3.0.2 graphology@0.26.0   # in a scratch folder, then untar both
    python bench/graph_sigma_compare.py GRAPH.html SIGMA_PKG GRAPHOLOGY_PKG OUT.html
    chromium --headless --no-sandbox --enable-unsafe-swiftshader --virtual-time-budget=60000 --dump-dom OUT.html

GRAPH.html is a page written by `cairn graph --html`; its data (every file, import and reference
edge) is drawn at file level with the same sunflower clusters; `<body data-ms>` is the time to
sigma's first render. Nothing of sigma is kept in this repository: the packages are read from
where `npm pack` put them.
"""

from __future__ import annotations

import re
from pathlib import Path

import benchlib

APP = r"""
var t0 = performance.now();
var D = JSON.parse(document.getElementById("d").textContent);
var g = new graphology.MultiDirectedGraph();
var maxR = 1e-12; D.files.forEach(function (f) { if (f.r > maxR) maxR = f.r; });
var byMod = {};
D.files.forEach(function (f, i) { (byMod[f.m] = byMod[f.m] || []).push(i); });
var mods = Object.keys(byMod), cols = Math.ceil(Math.sqrt(mods.length));
mods.forEach(function (m, j) {
  var cx = (j % cols) * 600, cy = Math.floor(j / cols) * 600;
  byMod[m].forEach(function (i, k) {
    var r = 16 * Math.sqrt(k), th = k * 2.39996;
    g.addNode("f" + i, { x: cx + r * Math.cos(th), y: cy + r * Math.sin(th), size: 2 + 10 * Math.sqrt(D.files[i].r / maxR),
                         label: D.files[i].p, color: "#5c6bc0" });
  });
});
D.edges.forEach(function (e, j) { if (e[2] < 4) g.addEdgeWithKey("e" + j, "f" + e[0], "f" + e[1], { color: "#90a4ae", size: 0.5 }); });
var s = new Sigma(g, document.getElementById("c"));
var done = false;
s.on("afterRender", function () {
  if (done) return; done = true;
  document.body.dataset.ms = String(Math.round(performance.now() - t0));
  document.body.dataset.nodes = String(g.order); document.body.dataset.edges = String(g.size);
});
s.refresh();
"""


def main() -> None:
    graph, sigma_pkg, graphology_pkg, out = (Path(a) for a in benchlib.usage(__doc__, 4, 4))
    html = graph.read_text(encoding="utf-8")
    data = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', html, re.S).group(1)
    graphology = (graphology_pkg / "dist" / "graphology.umd.min.js").read_text(encoding="utf-8")
    sigma = (sigma_pkg / "dist" / "sigma.min.js").read_text(encoding="utf-8")
    out.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><style>#c{width:1400px;height:900px}</style>'
        f'</head><body><div id="c"></div><script type="application/json" id="d">{data}</script>'
        f"<script>{graphology}</script><script>{sigma}</script><script>{APP}</script></body></html>",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
