// The explorer's entry point (bundled by scripts/build-explorer.mjs into dist/explorer/app.js
// and app.css): mounts the app on `#app`, reading the node named by `?node=` or the page's own.
import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { render } from "preact";
import { Api, nodeBaseOf } from "./api.js";
import { App } from "./App.js";

const root = document.getElementById("app");
if (root === null) throw new Error("index.html has no #app element");
render(<App api={new Api(nodeBaseOf(window.location))} />, root);
