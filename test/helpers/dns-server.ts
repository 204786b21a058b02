/**
 * A DNS server on loopback UDP speaking the real wire format (RFC 1035 §4), for testing the c-ares
 * resolver: names answer from a table (A, AAAA, CNAME chains), are NXDOMAIN when absent, or never
 * answer at all (`hang`). Every query received is recorded.
 */
import dgram from "node:dgram";
import net from "node:net";

export interface DnsRecordSet {
  a?: string[];
  aaaa?: string[];
  /** This name is an alias of `cname` (its addresses come from the target's entry). */
  cname?: string;
  /** Never answer queries for this name. */
  hang?: boolean;
  /** Answer SERVFAIL. */
  servfail?: boolean;
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, for `setServers`. */
  address: string;
  queries: Array<{ name: string; type: number }>;
  close(): Promise<void>;
}

const TYPE = { A: 1, CNAME: 5, AAAA: 28 } as const;

export async function startDnsServer(zone: Record<string, DnsRecordSet>): Promise<DnsServer> {
  const socket = dgram.createSocket("udp4");
  const queries: DnsServer["queries"] = [];
  socket.on("message", (message, remote) => {
    const parsed = parseQuery(message);
    if (parsed === undefined) return;
    queries.push({ name: parsed.name, type: parsed.type });
    const answer = answerFor(zone, parsed.name, parsed.type);
    if (answer === "hang") return;
    socket.send(encodeResponse(message, parsed.questionEnd, answer), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

type Answer = "hang" | { rcode: number; records: Array<{ name: string; type: number; data: Buffer }> };

function answerFor(zone: Record<string, DnsRecordSet>, queried: string, type: number): Answer {
  const records: Array<{ name: string; type: number; data: Buffer }> = [];
  let name = queried;
  for (let depth = 0; depth < 10; depth += 1) {
    const set = zone[name];
    if (set === undefined) return records.length > 0 ? { rcode: 0, records } : { rcode: 3, records };
    if (set.hang) return "hang";
    if (set.servfail) return { rcode: 2, records: [] };
    if (set.cname !== undefined) {
      records.push({ name, type: TYPE.CNAME, data: encodeName(set.cname) });
      if (type === TYPE.CNAME) return { rcode: 0, records };
      name = set.cname;
      continue;
    }
    const list = type === TYPE.A ? (set.a ?? []) : type === TYPE.AAAA ? (set.aaaa ?? []) : [];
    for (const address of list) records.push({ name, type, data: encodeAddress(address) });
    return { rcode: 0, records };
  }
  return { rcode: 2, records: [] };
}

function parseQuery(message: Buffer): { name: string; type: number; questionEnd: number } | undefined {
  if (message.length < 17) return undefined;
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset]!;
    offset += 1;
    if (length === 0) break;
    labels.push(message.toString("latin1", offset, offset + length));
    offset += length;
  }
  const type = message.readUInt16BE(offset);
  return { name: labels.join(".").toLowerCase(), type, questionEnd: offset + 4 };
}

function encodeName(name: string): Buffer {
  const parts = name.split(".").filter((label) => label.length > 0);
  return Buffer.concat([...parts.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, "latin1")])), Buffer.from([0])]);
}

function encodeAddress(address: string): Buffer {
  if (net.isIPv4(address)) return Buffer.from(address.split(".").map(Number));
  const halves = address.split("::");
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length > 1 && halves[1] ? halves[1].split(":") : [];
  const groups = [...head, ...Array<string>(8 - head.length - tail.length).fill("0"), ...tail];
  const out = Buffer.alloc(16);
  groups.forEach((group, i) => out.writeUInt16BE(parseInt(group, 16), i * 2));
  return out;
}

function encodeResponse(query: Buffer, questionEnd: number, answer: Exclude<Answer, "hang">): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  // QR, opcode 0, RD copied, RA, rcode.
  header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | answer.rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answer.records.length, 6);
  const question = query.subarray(12, questionEnd);
  const records = answer.records.map((record) => {
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(record.type, 0);
    fixed.writeUInt16BE(1, 2); // IN
    fixed.writeUInt32BE(60, 4);
    fixed.writeUInt16BE(record.data.length, 8);
    return Buffer.concat([encodeName(record.name), fixed, record.data]);
  });
  return Buffer.concat([header, question, ...records]);
}
