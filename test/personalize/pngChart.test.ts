import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { renderLineChart } from '../../main/personalize/pngChart.js';

/** The chunks of a PNG file, with their CRCs checked. */
function chunks(png: Buffer): Map<string, Buffer[]> {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const out = new Map<string, Buffer[]>();
  let at = 8;
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    out.set(type, [...(out.get(type) ?? []), png.subarray(at + 8, at + 8 + len)]);
    at += 12 + len;
  }
  return out;
}

describe('PNG line chart', () => {
  it('writes a valid RGB PNG of the requested size whose pixels show the series', () => {
    const png = renderLineChart({
      title: 'test',
      xLabel: 'x',
      yLabel: 'y',
      width: 400,
      height: 300,
      series: [
        {
          label: 'a',
          color: [255, 0, 0],
          points: [
            [0, 0.1],
            [10, 0.9],
          ],
        },
      ],
    });
    const c = chunks(png);
    const ihdr = c.get('IHDR')![0];
    assert.equal(ihdr.readUInt32BE(0), 400);
    assert.equal(ihdr.readUInt32BE(4), 300);
    assert.deepEqual([ihdr[8], ihdr[9]], [8, 2]);
    assert.ok(c.has('IEND'));
    const raw = zlib.inflateSync(Buffer.concat(c.get('IDAT')!));
    assert.equal(raw.length, (400 * 3 + 1) * 300);
    let red = 0;
    for (let y = 0; y < 300; y++)
      for (let x = 0; x < 400; x++) {
        const i = y * (400 * 3 + 1) + 1 + x * 3;
        if (raw[i] === 255 && raw[i + 1] === 0 && raw[i + 2] === 0) red++;
      }
    assert.ok(red > 200, `only ${red} red pixels`);
  });

  it('wraps a legend wider than the chart into rows and grows to fit them, plot and all', () => {
    const series = (n: number, label: string) =>
      Array.from({ length: n }, (_, i) => ({
        label: `${label} ${i}`,
        color: [i * 20, 0, 0] as [number, number, number],
        points: [[0, 0.5]] as Array<[number, number]>,
      }));
    const size = (png: Buffer) => {
      const ihdr = chunks(png).get('IHDR')![0];
      return [ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)];
    };
    const chart = (n: number, label: string) =>
      renderLineChart({ title: 't', xLabel: 'x', yLabel: 'y', width: 900, height: 520, series: series(n, label) });
    assert.deepEqual(size(chart(2, 'short')), [900, 520], 'a legend that fits takes one row');
    const [w, h] = size(chart(12, 'a rather long series label'));
    assert.equal(w, 900);
    assert.ok(h > 520 + 26 * 3, `twelve long labels need several rows: ${h} px high`);
  });
});
