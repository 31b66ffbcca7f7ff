// The shapes of the rows the statements in `queries.ts` return (their column aliases).

export interface ChainStateRow {
  chainId: string | null;
  height: number;
  appHash: string;
  commitment: "bigchaindb" | "v1";
  historySize: number;
  appVersion: string | null;
  ruleHeights: string;
}

export interface SeqJsonRow {
  seq: number;
  json: string;
}

export interface SeqIdRow {
  seq: number;
  id: string;
}

export interface SpentRow {
  seq: number;
  outputIndex: number;
  spender: number;
}

export interface OutputOfKeyRow {
  seq: number;
  outputIndex: number;
  transactionId: string;
  publicKeys: string;
  amount: string;
  assetId: string;
  conditionUri: string;
}

export interface OutputRow {
  seq: number;
  outputIndex: number;
  transactionId: string;
  assetId: string;
  amount: string;
  conditionUri: string;
  publicKeys: string;
}

export interface BlockRow {
  appHash: string;
  seqFirst: number;
  txCount: number;
  historySize: number | null;
}

export interface TxRow {
  seq: number;
  id: string;
  operation: string;
  assetId: string;
}

export interface OutputAfterRow {
  seq: number;
  outputIndex: number;
  publicKeys: string;
}

export interface InputAfterRow {
  spenderSeq: number;
  txSeq: number;
  outputIndex: number;
}

export interface LegacyOutputRow {
  seq: number;
  cid: number;
  conditionUri: string;
  publicKeys: string;
  spentBy: string | null;
}

export interface RefusalRow {
  height: number;
  code: string;
  message: string;
}
