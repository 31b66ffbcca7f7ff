// The Bitcoin base58 alphabet, which BigchainDB uses for every key (`base58` Python package, `bs58`
// in the JavaScript driver): digits and letters without 0, O, I and l.

export const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
