// The seeded PRNG of chaos runs (chaos/random.ts), with random text for the fuzzing tests, so
// that randomized tests are reproducible from their seed.
import { Random as SeededRandom } from "../../chaos/random.js";

export class Random extends SeededRandom {
  /** A random string mixing ASCII, Latin, CJK, astral characters and control characters. */
  text(maxLength: number): string {
    const pools = [
      "abcdefghijklmnopqrstuvwxyz ABCDEFXYZ0123456789-_",
      "éèêëàâäôöûüçñßøåæœ",
      "日本語中文한국어テスト",
      "🔑🚀😀𝄞𠜎",
      "\u0000\u0001\u0008\u000b\u000e\u001a\u001f\t\n\r\"\\/\u007f\u2028\ufeff\ue000\uffff",
    ];
    const length = this.int(maxLength + 1);
    let out = "";
    for (let i = 0; i < length; i++) out += this.pick([...this.pick(pools)]);
    return out;
  }
}
