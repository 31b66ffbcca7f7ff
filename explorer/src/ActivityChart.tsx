// The live chart (uPlot): committed transactions per second as bars, and the time between
// successive blocks as points, over the last `chartWindowSeconds`. It redraws once a second from
// the Live store's ring of buckets, so its memory does not grow. The numbers are also written
// out as text, for readers who do not see the canvas.
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import type { Live } from "./live.js";
import { chartHeightPx, chartRedrawIntervalMs, chartWindowSeconds } from "./limits.js";
import type { RateSeries } from "./rateWindow.js";

const transactionsColor = "#1d5fbf";
const intervalColor = "#b3261e";
const axisColor = "#333333";

function chartOptions(width: number): uPlot.Options {
  const bars = uPlot.paths.bars?.({ size: [0.8, Infinity] });
  return {
    width,
    height: chartHeightPx,
    legend: { show: false },
    cursor: { show: false },
    scales: {
      x: { time: true },
      tps: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      interval: { range: (_u, _min, max) => [0, Math.max(1, max ?? 1)] },
    },
    series: [
      {},
      { label: "tx/s", scale: "tps", stroke: transactionsColor, fill: "rgba(29, 95, 191, 0.35)", ...(bars === undefined ? {} : { paths: bars }) },
      { label: "block interval (s)", scale: "interval", stroke: intervalColor, width: 2, spanGaps: true, points: { show: true, size: 5 } },
    ],
    axes: [
      { stroke: axisColor },
      { scale: "tps", stroke: transactionsColor, size: 44 },
      { scale: "interval", side: 1, stroke: intervalColor, grid: { show: false }, size: 44 },
    ],
  };
}

const dataOf = (s: RateSeries): uPlot.AlignedData => [s.seconds, s.transactionsPerSecond, s.blockIntervalSeconds];

/** The last full second's rate and the last interval seen, in words. */
function summaryOf(s: RateSeries): string {
  const lastFull = s.transactionsPerSecond[s.transactionsPerSecond.length - 2] ?? 0;
  const interval = [...s.blockIntervalSeconds].reverse().find((v) => v !== null);
  const intervalText = interval === undefined || interval === null ? "no block interval seen yet" : `last block interval ${interval.toFixed(2)} s`;
  return `${lastFull} tx/s in the last full second; ${intervalText}.`;
}

export function ActivityChart({ live }: { live: Live }) {
  const holder = useRef<HTMLDivElement>(null);
  const [summary, setSummary] = useState(() => summaryOf(live.rates.series(live.now())));
  useEffect(() => {
    const element = holder.current;
    if (element === null) return undefined;
    const plot = new uPlot(chartOptions(element.clientWidth), dataOf(live.rates.series(live.now())), element);
    const timer = setInterval(() => {
      const series = live.rates.series(live.now());
      plot.setData(dataOf(series));
      setSummary(summaryOf(series));
    }, chartRedrawIntervalMs);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: chartHeightPx }));
    resize.observe(element);
    return () => {
      clearInterval(timer);
      resize.disconnect();
      plot.destroy();
    };
  }, [live]);
  return (
    <figure class="chart">
      <div ref={holder} role="img" aria-label={`Chart of the last ${chartWindowSeconds} seconds: ${summary}`} />
      <figcaption>
        <span class="swatch" style={{ background: transactionsColor }} aria-hidden="true" /> transactions per second{" "}
        <span class="swatch" style={{ background: intervalColor }} aria-hidden="true" /> seconds between blocks
        <br />
        {summary}
      </figcaption>
    </figure>
  );
}
