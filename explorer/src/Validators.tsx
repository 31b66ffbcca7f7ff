// The validator set with each validator's power and share (`GET /api/v1/validators`). Left out
// when the node does not answer it.
import { Section, shortId, useAnswer, useApi } from "./ui.js";
import { validatorOf, type Validator } from "./wire.js";

const percent = 100;

export function Validators() {
  const api = useApi();
  const loaded = useAnswer(() => api.ask<unknown>((client) => client.getValidators()), api.base);
  if (loaded.loading || !loaded.answer.ok) return null;
  const list = loaded.answer.value;
  if (!Array.isArray(list)) return null;
  const validators = list.map(validatorOf).filter((v): v is Validator => v !== null);
  const total = validators.reduce((sum, v) => sum + v.power, 0);
  return (
    <Section title={`Validators (${validators.length})`} id="validators">
      {validators.length === 0 ? (
        <p>None.</p>
      ) : (
        <div class="scroll">
          <table>
            <caption class="visually-hidden">Validators and their voting power</caption>
            <thead>
              <tr>
                <th scope="col">Public key</th>
                <th scope="col" class="num">Power</th>
                <th scope="col" class="num">Share</th>
              </tr>
            </thead>
            <tbody>
              {validators.map((v) => (
                <tr key={v.key}>
                  <td>
                    <code title={v.key}>{shortId(v.key)}</code>
                  </td>
                  <td class="num">{v.power}</td>
                  <td class="num">{total > 0 ? `${((v.power / total) * percent).toFixed(1)} %` : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
