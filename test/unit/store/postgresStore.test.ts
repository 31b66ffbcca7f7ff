// The PostgreSQL backend (src/store/postgres/) against a real PostgreSQL 15 server started for
// these tests (test/helpers/postgres.ts): the one conformance suite, unchanged, then what is
// PostgreSQL's own (the schema version, the writer's lock, readers, a server that goes away).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { PostgresStore } from "../../../src/store/postgres/postgresStore.js";
import { postgresSchemaVersion } from "../../../src/store/postgres/schema.js";
import { startPostgres, type PostgresServer } from "../../helpers/postgres.js";
import { storeConformance } from "./conformance.js";

let server: PostgresServer | undefined;
const serverStarted = startPostgres().then((started) => (server = started));
after(() => server?.stop());

async function freshUrl(): Promise<string> {
  return (await serverStarted).newDatabase();
}

storeConformance("postgres", async () => PostgresStore.open({ url: await freshUrl() }));
