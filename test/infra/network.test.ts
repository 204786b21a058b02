import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import { amazonDnsAddress, DENIED_CIDRS } from "../../infra/constructs/network";
import { resourcesOf, synth } from "./synth";

const dev = synth("dev");
const resources = (type: string, s = dev) => resourcesOf(s, type);

const subnetsByGroup = (group: string) =>
  resources("AWS::EC2::Subnet").filter((s) => (s.props.Tags as Array<{ Key: string; Value: string }>).some((t) => t.Key === "aws-cdk:subnet-name" && t.Value === group));

const functionSg = resources("AWS::EC2::SecurityGroup").find((s) => String(s.props.GroupDescription).startsWith("webgate functions"))!;
const endpointSg = resources("AWS::EC2::SecurityGroup").find((s) => String(s.props.GroupDescription).startsWith("webgate VPC interface endpoints"))!;

describe("VPC", () => {
  it("spans two AZs with public, function and endpoint subnets", () => {
    expect(resources("AWS::EC2::VPC")).toHaveLength(1);
    expect(resources("AWS::EC2::VPC")[0]!.props.CidrBlock).toBe("10.20.0.0/16");
    for (const group of ["public", "functions", "endpoints"]) expect(subnetsByGroup(group)).toHaveLength(2);
    const azs = subnetsByGroup("functions").map((s) => JSON.stringify(s.props.AvailabilityZone));
    expect(new Set(azs).size).toBe(2);
  });

  it("has the NAT gateway count of each environment", () => {
    expect(resources("AWS::EC2::NatGateway")).toHaveLength(1);
    expect(resources("AWS::EC2::NatGateway", synth("prod"))).toHaveLength(2);
  });

  it("logs all traffic with flow logs to a log group with retention", () => {
    const [flowLog] = resources("AWS::EC2::FlowLog");
    expect(flowLog!.props).toMatchObject({ ResourceType: "VPC", TrafficType: "ALL", LogDestinationType: "cloud-watch-logs" });
  });
});

describe("security groups", () => {
  it("lets the functions out only on TCP 443 and 80 to the internet and 443 to the endpoints", () => {
    expect(functionSg.props.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: "0.0.0.0/0", IpProtocol: "tcp", FromPort: 443, ToPort: 443 }),
      expect.objectContaining({ CidrIp: "0.0.0.0/0", IpProtocol: "tcp", FromPort: 80, ToPort: 80 }),
    ]);
    const egress = resources("AWS::EC2::SecurityGroupEgress").filter((e) => JSON.stringify(e.props.GroupId).includes(functionSg.id));
    expect(egress).toHaveLength(1);
    expect(egress[0]!.props).toMatchObject({ IpProtocol: "tcp", FromPort: 443, ToPort: 443, DestinationSecurityGroupId: { "Fn::GetAtt": [endpointSg.id, "GroupId"] } });
    expect(functionSg.props.SecurityGroupIngress).toBeUndefined();
    expect(resources("AWS::EC2::SecurityGroupIngress").filter((e) => JSON.stringify(e.props.GroupId).includes(functionSg.id))).toHaveLength(0);
  });

  it("lets only the functions into the endpoints, on 443", () => {
    const ingress = resources("AWS::EC2::SecurityGroupIngress").filter((e) => JSON.stringify(e.props.GroupId).includes(endpointSg.id));
    expect(ingress).toHaveLength(1);
    expect(ingress[0]!.props).toMatchObject({ IpProtocol: "tcp", FromPort: 443, ToPort: 443, SourceSecurityGroupId: { "Fn::GetAtt": [functionSg.id, "GroupId"] } });
    expect(endpointSg.props.SecurityGroupIngress).toBeUndefined();
  });
});

describe("endpoints", () => {
  it("has a DynamoDB gateway endpoint on the function subnets' route tables", () => {
    const gateway = resources("AWS::EC2::VPCEndpoint").filter((e) => e.props.VpcEndpointType === "Gateway");
    expect(gateway).toHaveLength(1);
    expect(JSON.stringify(gateway[0]!.props.ServiceName)).toContain(".dynamodb");
    const tables = JSON.stringify(gateway[0]!.props.RouteTableIds);
    for (const s of subnetsByGroup("functions")) expect(tables).toContain(s.id.replace(/Subnet[0-9A-F]+$/, "RouteTable"));
  });

  it("has a Secrets Manager interface endpoint with private DNS in the endpoint subnets", () => {
    const iface = resources("AWS::EC2::VPCEndpoint").filter((e) => e.props.VpcEndpointType === "Interface");
    expect(iface).toHaveLength(1);
    expect(iface[0]!.props).toMatchObject({ PrivateDnsEnabled: true, SecurityGroupIds: [{ "Fn::GetAtt": [endpointSg.id, "GroupId"] }] });
    expect(JSON.stringify(iface[0]!.props.ServiceName)).toContain("secretsmanager");
    expect(iface[0]!.props.SubnetIds).toEqual(subnetsByGroup("endpoints").map((s) => ({ Ref: s.id })));
  });
});

describe("function subnets' network ACL", () => {
  const [acl] = resources("AWS::EC2::NetworkAcl");
  const entries = resources("AWS::EC2::NetworkAclEntry").map((e) => e.props as { Egress: boolean; RuleAction: string; RuleNumber: number; CidrBlock: string; Protocol: number; PortRange?: { From: number; To: number } });
  const endpointCidrs = subnetsByGroup("endpoints").map((s) => s.props.CidrBlock as string);

  it("is the only custom ACL and is attached to exactly the function subnets", () => {
    expect(resources("AWS::EC2::NetworkAcl")).toHaveLength(1);
    const assoc = resources("AWS::EC2::SubnetNetworkAclAssociation");
    expect(assoc.map((a) => a.props.SubnetId as unknown).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      subnetsByGroup("functions").map((s) => ({ Ref: s.id })),
    );
    for (const a of assoc) expect(a.props.NetworkAclId).toEqual({ Ref: acl!.id });
  });

  it("denies every private range in both directions, after the endpoint exceptions and before the public allows", () => {
    for (const egress of [true, false]) {
      const side = entries.filter((e) => e.Egress === egress);
      const denies = side.filter((e) => e.RuleAction === "deny");
      expect(denies.map((d) => d.CidrBlock)).toEqual([...DENIED_CIDRS]);
      for (const d of denies) expect(d.Protocol).toBe(-1);
      const firstDeny = Math.min(...denies.map((d) => d.RuleNumber));
      const lastDeny = Math.max(...denies.map((d) => d.RuleNumber));
      for (const allow of side.filter((e) => e.RuleAction === "allow")) {
        if (allow.CidrBlock === "0.0.0.0/0") expect(allow.RuleNumber).toBeGreaterThan(lastDeny);
        else expect(allow.RuleNumber).toBeLessThan(firstDeny);
      }
    }
  });

  /** Evaluates the ACL as AWS does: lowest rule number first, first match wins, else deny. */
  function decide(egress: boolean, address: string, protocol: "tcp" | "udp", port: number): "allow" | "deny" {
    const proto = protocol === "tcp" ? 6 : 17;
    const ordered = entries.filter((e) => e.Egress === egress).sort((a, b) => a.RuleNumber - b.RuleNumber);
    for (const e of ordered) {
      const [net, bits] = ipaddr.parseCIDR(e.CidrBlock);
      if (!ipaddr.parse(address).match(net, bits)) continue;
      if (e.Protocol !== -1) {
        if (e.Protocol !== proto) continue;
        const range = e.PortRange as { From: number; To: number };
        if (port < range.From || port > range.To) continue;
      }
      return e.RuleAction as "allow" | "deny";
    }
    return "deny";
  }

  const endpointHost = (i: number) => {
    const [net] = ipaddr.parseCIDR(endpointCidrs[i]!);
    const bytes = net.toByteArray();
    bytes[3] = bytes[3]! + 10;
    return ipaddr.fromByteArray(bytes).toString();
  };

  it.each([
    // The internet on 443/80 only.
    ["8.8.8.8", "tcp", 443, "allow"],
    ["93.184.216.34", "tcp", 80, "allow"],
    ["8.8.8.8", "tcp", 22, "deny"],
    ["8.8.8.8", "udp", 443, "deny"],
    // Private, shared and link-local ranges, on any port.
    ["10.0.0.1", "tcp", 443, "deny"],
    ["10.255.255.255", "tcp", 80, "deny"],
    ["172.16.0.1", "tcp", 443, "deny"],
    ["172.31.255.254", "udp", 53, "deny"],
    ["192.168.1.1", "tcp", 443, "deny"],
    ["100.64.0.1", "tcp", 80, "deny"],
    ["169.254.169.254", "tcp", 80, "deny"],
    // Inside the VPC, only AmazonProvidedDNS and the endpoint subnets on 443.
    [amazonDnsAddress("10.20.0.0/16"), "udp", 53, "allow"],
    [amazonDnsAddress("10.20.0.0/16"), "tcp", 53, "allow"],
    [amazonDnsAddress("10.20.0.0/16"), "tcp", 443, "deny"],
    ["10.20.0.3", "udp", 53, "deny"],
    ["10.20.4.10", "tcp", 443, "deny"],
  ] as const)("outbound to %s %s/%d: %s", (address, protocol, port, expected) => {
    expect(decide(true, address, protocol, port)).toBe(expected);
  });

  it("allows 443 to both endpoint subnets and their replies back, but no other port", () => {
    expect(endpointCidrs).toHaveLength(2);
    for (const i of [0, 1]) {
      expect(decide(true, endpointHost(i), "tcp", 443)).toBe("allow");
      expect(decide(true, endpointHost(i), "tcp", 80)).toBe("deny");
      expect(decide(false, endpointHost(i), "tcp", 50_000)).toBe("allow");
    }
  });

  it.each([
    ["8.8.8.8", "tcp", 50_000, "allow"],
    ["8.8.8.8", "tcp", 22, "deny"],
    ["8.8.8.8", "udp", 50_000, "deny"],
    ["10.1.2.3", "tcp", 50_000, "deny"],
    ["169.254.169.254", "tcp", 50_000, "deny"],
    ["192.168.0.10", "tcp", 50_000, "deny"],
  ] as const)("inbound from %s %s/%d: %s", (address, protocol, port, expected) => {
    expect(decide(false, address, protocol, port)).toBe(expected);
  });
});

describe("amazonDnsAddress", () => {
  it.each([
    ["10.20.0.0/16", "10.20.0.2"],
    ["172.31.255.0/24", "172.31.255.2"],
    ["10.0.0.254/31", "10.0.1.0"],
  ])("%s → %s", (cidr, expected) => expect(amazonDnsAddress(cidr)).toBe(expected));

  it("refuses what is not an IPv4 CIDR", () => {
    expect(() => amazonDnsAddress("fd00::/8")).toThrow(/Not an IPv4 CIDR/);
    expect(() => amazonDnsAddress("10.0.0.256/16")).toThrow(/Not an IPv4 CIDR/);
  });
});
