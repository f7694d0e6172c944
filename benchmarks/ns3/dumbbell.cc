// A dumbbell for comparing ns-3 with the dwtcp_fluid packet core on the same settings.
//
// N senders --(access, C)--> A --(bottleneck, C)--> B --(access, C)--> one receiver (N packet sinks).
// Every link runs at the bottleneck's packet rate: the point-to-point header (2 bytes) is paid for by a data rate
// of C * 1502/1500, so a 1500-byte IP packet (1460 bytes of payload, no TCP options on data) takes L/C seconds.
// Propagation delays make the smallest round trip (data serialised on three links, a 40-byte ACK on three)
// equal to the base RTT.
//
// The bottleneck (A -> B) holds `buffer` packets waiting for service: a queue disc of buffer - 1 packets in front
// of a one-packet device queue (the device queue is full whenever the queue disc holds a packet). Marking:
// RedQueueDisc with QW = 1 (the instantaneous queue), Gentle off, MinTh = MaxTh = K - 1 on the queue disc's own
// count, UseEcn, UseHardDrop off: a packet is CE-marked when it finds K or more packets waiting ahead of it
// (the queue disc's K - 1 plus the device queue's one). Drop-tail: FifoQueueDisc, no ECN (Reno: TcpNewReno,
// CUBIC: TcpCubic with its defaults: fast convergence, TCP friendliness, HyStart, beta 0.7, C 0.4).
//
// Output (stdout, one JSON object): the bottleneck's waiting packets (queue disc + device queue) averaged
// exactly over `bins` equal bins of the run, per-flow bytes received over the last half, packets the
// bottleneck sent over the last half, drops and CE marks over the whole run (and drops at any other device,
// expected 0), (DCTCP) each sender's time-averaged alpha over the last half, and the senders' entries into
// fast recovery (CA_RECOVERY) and retransmission timeouts (CA_LOSS) over the whole run.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

double g_duration = 0.2; // s
double g_half = 0.1;     // s: statistics over [g_half, g_duration]
uint32_t g_bins = 1;
std::vector<double> g_qArea; // packet-seconds per bin
uint32_t g_qDisc = 0;
uint32_t g_qDev = 0;
double g_qLast = 0.0;
uint64_t g_drops = 0;
uint64_t g_dropsElsewhere = 0; // any other device queue (sender NICs, the ACK path): expected 0
uint64_t g_marks = 0;
uint64_t g_txLastHalf = 0;
std::vector<double> g_alpha;      // current alpha per flow
std::vector<double> g_alphaLast;  // time of the last alpha change per flow
std::vector<double> g_alphaArea;  // integral of alpha over [g_half, ...]
std::vector<uint64_t> g_alphaUpdates;
uint64_t g_recoveries = 0; // entries into CA_RECOVERY, all senders
uint64_t g_timeouts = 0;   // entries into CA_LOSS (retransmission timeouts), all senders

void
QueueAdvance()
{
    double now = Simulator::Now().GetSeconds();
    double width = g_duration / g_bins;
    double q = g_qDisc + g_qDev;
    while (g_qLast < now)
    {
        uint32_t idx = static_cast<uint32_t>(g_qLast / width);
        if (idx >= g_bins)
        {
            g_qLast = now;
            break;
        }
        double end = std::min(now, (idx + 1) * width);
        if (end <= g_qLast) // rounding at a bin edge
        {
            end = std::min(now, g_qLast + 1e-15);
        }
        g_qArea[idx] += q * (end - g_qLast);
        g_qLast = end;
    }
}

void
QueueDiscPackets(uint32_t, uint32_t v)
{
    QueueAdvance();
    g_qDisc = v;
}

void
DevicePackets(uint32_t, uint32_t v)
{
    QueueAdvance();
    g_qDev = v;
}

void
QueueDiscDrop(Ptr<const QueueDiscItem>)
{
    ++g_drops;
}

void
DeviceDrop(Ptr<const Packet>)
{
    ++g_drops;
}

void
OtherDrop(Ptr<const Packet>)
{
    ++g_dropsElsewhere;
}

void
QueueDiscMark(Ptr<const QueueDiscItem>, const char*)
{
    ++g_marks;
}

void
BottleneckTxEnd(Ptr<const Packet>)
{
    if (Simulator::Now().GetSeconds() >= g_half)
    {
        ++g_txLastHalf;
    }
}

void
AlphaAdvance(uint32_t f, double now)
{
    double from = std::max(g_alphaLast[f], g_half);
    if (now > from)
    {
        g_alphaArea[f] += g_alpha[f] * (now - from);
    }
    g_alphaLast[f] = now;
}

void
AlphaChanged(uint32_t f, uint32_t, uint32_t, double alpha)
{
    AlphaAdvance(f, Simulator::Now().GetSeconds());
    g_alpha[f] = alpha;
    ++g_alphaUpdates[f];
}

void
ConnectAlpha(Ptr<BulkSendApplication> app, uint32_t f)
{
    Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!sock, "flow " << f << " has no TCP socket at its start");
    PointerValue ops;
    sock->GetAttribute("CongestionOps", ops);
    Ptr<TcpDctcp> dctcp = ops.Get<TcpDctcp>();
    NS_ABORT_MSG_IF(!dctcp, "flow " << f << " does not run TcpDctcp");
    dctcp->TraceConnectWithoutContext("CongestionEstimate", MakeBoundCallback(&AlphaChanged, f));
}

void
CountState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v)
{
    g_recoveries += v == TcpSocketState::CA_RECOVERY ? 1 : 0;
    g_timeouts += v == TcpSocketState::CA_LOSS ? 1 : 0;
}

void
ConnectCount(Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!sock, "a flow has no TCP socket at its start");
    sock->TraceConnectWithoutContext("CongState", MakeCallback(&CountState));
}

// --traceFlow f: one line per change of flow f's sender state (time in µs, then the values in packets of
// 1460 bytes): "cwnd", "ssthresh", "inflight", "state" (TcpCongState_t: 0 Open, 1 Disorder, 2 CWR, 3 Recovery,
// 4 Loss) and "ack" (each ACK received: its acknowledgment number in segments and its ECE flag).
FILE* g_trace = nullptr;
double g_traceMss = 1460.0;

void
TraceValue(const char* what, uint32_t, uint32_t v)
{
    std::fprintf(g_trace, "%.3f %s %.4f\n", Simulator::Now().GetSeconds() * 1e6, what, v / g_traceMss);
}

void
TraceState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v)
{
    std::fprintf(g_trace, "%.3f state %d\n", Simulator::Now().GetSeconds() * 1e6, static_cast<int>(v));
}

void
TraceRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (h.GetFlags() & TcpHeader::ACK)
    {
        std::fprintf(g_trace,
                     "%.3f ack %.4f %d\n",
                     Simulator::Now().GetSeconds() * 1e6,
                     h.GetAckNumber().GetValue() / g_traceMss,
                     (h.GetFlags() & TcpHeader::ECE) ? 1 : 0);
    }
}

void
ConnectTrace(Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!sock, "the traced flow has no TCP socket at its start");
    sock->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&TraceValue, "cwnd"));
    sock->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&TraceValue, "ssthresh"));
    sock->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&TraceValue, "inflight"));
    sock->TraceConnectWithoutContext("CongState", MakeCallback(&TraceState));
    sock->TraceConnectWithoutContext("Rx", MakeCallback(&TraceRx));
}

std::vector<uint64_t> g_rxHalf;

void
SnapshotRx(ApplicationContainer sinks)
{
    for (uint32_t i = 0; i < sinks.GetN(); ++i)
    {
        g_rxHalf[i] = DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t flows = 10;
    double capacityBps = 10e9;
    double rttS = 100e-6;
    double K = 65;
    uint32_t buffer = 250;
    std::string law = "dctcp";
    std::string recovery = "prr";
    double g = 1.0 / 16.0;
    double minRtoS = 1e-3;
    uint32_t seed = 1;
    int32_t traceFlow = -1;
    std::string traceFile = "";

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of senders N", flows);
    cmd.AddValue("capacity", "bottleneck capacity (bit/s of IP packets)", capacityBps);
    cmd.AddValue("rtt", "base round-trip time (s)", rttS);
    cmd.AddValue("K", "ECN marking threshold (packets waiting ahead of an arrival)", K);
    cmd.AddValue("buffer", "bottleneck buffer (packets waiting)", buffer);
    cmd.AddValue("law",
                 "dctcp (TcpDctcp, step marking), reno (TcpNewReno) or cubic (TcpCubic): drop-tail, no ECN",
                 law);
    cmd.AddValue("recovery", "prr (TcpPrrRecovery) or classic (TcpClassicRecovery)", recovery);
    cmd.AddValue("g", "DCTCP EWMA gain", g);
    cmd.AddValue("minRto", "minimum retransmission timeout (s)", minRtoS);
    cmd.AddValue("duration", "simulated time (s)", g_duration);
    cmd.AddValue("bins", "queue bins over the run", g_bins);
    cmd.AddValue("seed", "RngRun", seed);
    cmd.AddValue("traceFlow", "trace this flow's cwnd, ssthresh, bytes in flight, state, ACKs (-1: none)", traceFlow);
    cmd.AddValue("traceFile", "where --traceFlow writes (a text file)", traceFile);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(law != "dctcp" && law != "reno" && law != "cubic",
                    "law=" << law << ": accepted dctcp, reno or cubic");
    NS_ABORT_MSG_IF(recovery != "prr" && recovery != "classic",
                    "recovery=" << recovery << ": accepted prr or classic");
    NS_ABORT_MSG_IF(buffer < 2 || K < 3 || g_bins < 1 || flows < 1, "bad buffer, K, bins or flows");
    NS_ABORT_MSG_IF(traceFlow >= static_cast<int32_t>(flows), "traceFlow=" << traceFlow << ": accepted -1 to N-1");
    if (traceFlow >= 0)
    {
        g_trace = std::fopen(traceFile.c_str(), "w");
        NS_ABORT_MSG_IF(!g_trace, "traceFile=" << traceFile << ": cannot be written");
    }
    g_half = g_duration / 2.0;
    g_qArea.assign(g_bins, 0.0);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    const uint32_t ipBytes = 1500;
    const uint32_t mss = ipBytes - 40; // IPv4 + TCP headers, no options on data segments
    const double pktTime = ipBytes * 8.0 / capacityBps;
    const double ackTime = (40 + 2) * 8.0 / (capacityBps * 1502.0 / 1500.0);
    // Smallest RTT = 2 * (2 * accessDelay + bottleneckDelay) + 3 * pktTime + 3 * ackTime.
    const double oneWay = (rttS - 3 * pktTime - 3 * ackTime) / 2.0;
    NS_ABORT_MSG_IF(oneWay <= 0, "rtt too small for the serialisation delays");
    const Time accessDelay = Seconds(oneWay / 4.0);
    const Time bottleneckDelay = Seconds(oneWay / 2.0);
    const DataRate rate(static_cast<uint64_t>(capacityBps * 1502.0 / 1500.0));

    std::string tcpType = law == "dctcp"  ? "ns3::TcpDctcp"
                          : law == "cubic" ? "ns3::TcpCubic"
                                           : "ns3::TcpNewReno";
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(tcpType));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       StringValue(recovery == "prr" ? "ns3::TcpPrrRecovery" : "ns3::TcpClassicRecovery"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRtoS)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       StringValue(law == "dctcp" ? "On" : "Off"));
    Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(g));
    Config::SetDefault("ns3::TcpDctcp::DctcpAlphaOnInit", DoubleValue(1.0));

    NodeContainer senders;
    senders.Create(flows);
    NodeContainer routers;
    routers.Create(2);
    NodeContainer receiver;
    receiver.Create(1);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(rate));
    access.SetChannelAttribute("Delay", TimeValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("100000p"));
    PointToPointHelper neck;
    neck.SetDeviceAttribute("DataRate", DataRateValue(rate));
    neck.SetChannelAttribute("Delay", TimeValue(bottleneckDelay));
    neck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    Ipv4AddressHelper ip;
    TrafficControlHelper none;
    std::vector<NetDeviceContainer> senderLinks;
    for (uint32_t i = 0; i < flows; ++i)
    {
        NetDeviceContainer d = access.Install(senders.Get(i), routers.Get(0));
        std::ostringstream net;
        net << "10." << (1 + i / 250) << "." << (i % 250) << ".0";
        ip.SetBase(net.str().c_str(), "255.255.255.0");
        ip.Assign(d);
        none.Uninstall(d);
        senderLinks.push_back(d);
    }
    NetDeviceContainer nd = neck.Install(routers.Get(0), routers.Get(1));
    TrafficControlHelper tch;
    std::string limit = std::to_string(buffer - 1) + "p";
    if (law == "dctcp")
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", StringValue(limit),
                             "MinTh", DoubleValue(K - 1),
                             "MaxTh", DoubleValue(K - 1),
                             "QW", DoubleValue(1.0),
                             "Gentle", BooleanValue(false),
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false),
                             "MeanPktSize", UintegerValue(ipBytes),
                             "LinkBandwidth", DataRateValue(rate),
                             "LinkDelay", TimeValue(bottleneckDelay));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(limit));
    }
    QueueDiscContainer qd = tch.Install(nd.Get(0));
    ip.SetBase("10.250.0.0", "255.255.255.0");
    ip.Assign(nd);
    none.Uninstall(nd.Get(1));
    NetDeviceContainer rd = access.Install(routers.Get(1), receiver.Get(0));
    ip.SetBase("10.251.0.0", "255.255.255.0");
    Ipv4InterfaceContainer rif = ip.Assign(rd);
    none.Uninstall(rd);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<QueueDisc> disc = qd.Get(0);
    disc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueDiscPackets));
    disc->TraceConnectWithoutContext("Drop", MakeCallback(&QueueDiscDrop));
    disc->TraceConnectWithoutContext("Mark", MakeCallback(&QueueDiscMark));
    Ptr<PointToPointNetDevice> neckDev = DynamicCast<PointToPointNetDevice>(nd.Get(0));
    neckDev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&DevicePackets));
    neckDev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&DeviceDrop));
    neckDev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&BottleneckTxEnd));
    // The reverse direction of the bottleneck carries the ACKs: no one-packet limit there.
    DynamicCast<PointToPointNetDevice>(nd.Get(1))->GetQueue()->SetMaxSize(QueueSize("100000p"));
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(i));
            if (dev && dev != neckDev)
            {
                dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OtherDrop));
            }
        }
    }

    Ptr<UniformRandomVariable> jitter = CreateObject<UniformRandomVariable>();
    ApplicationContainer sinks;
    g_alpha.assign(flows, 1.0);
    g_alphaLast.assign(flows, 0.0);
    g_alphaArea.assign(flows, 0.0);
    g_alphaUpdates.assign(flows, 0);
    g_rxHalf.assign(flows, 0);
    for (uint32_t i = 0; i < flows; ++i)
    {
        uint16_t port = 10000 + i;
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receiver.Get(0));
        s.Start(Seconds(0));
        sinks.Add(s);
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(rif.GetAddress(1), port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(mss * 64));
        ApplicationContainer a = src.Install(senders.Get(i));
        // a random offset in [0, RTT) per flow, so the flows are not in lockstep
        Time start = Seconds(jitter->GetValue(0.0, rttS));
        a.Start(start);
        if (law == "dctcp")
        {
            Simulator::Schedule(start + NanoSeconds(1),
                                &ConnectAlpha,
                                DynamicCast<BulkSendApplication>(a.Get(0)),
                                i);
        }
        Simulator::Schedule(start + NanoSeconds(1),
                            &ConnectCount,
                            DynamicCast<BulkSendApplication>(a.Get(0)));
        if (static_cast<int32_t>(i) == traceFlow)
        {
            Simulator::Schedule(start + NanoSeconds(1),
                                &ConnectTrace,
                                DynamicCast<BulkSendApplication>(a.Get(0)));
        }
    }
    Simulator::Schedule(Seconds(g_half), &SnapshotRx, sinks);
    Simulator::Stop(Seconds(g_duration));
    Simulator::Run();
    QueueAdvance();

    std::ostringstream out;
    out.precision(10);
    out << "{\"duration_s\": " << g_duration << ", \"bins\": " << g_bins << ", \"queue_mean_bins\": [";
    double width = g_duration / g_bins;
    for (uint32_t i = 0; i < g_bins; ++i)
    {
        out << (i ? "," : "") << g_qArea[i] / width;
    }
    out << "], \"rx_bytes_last_half\": [";
    for (uint32_t i = 0; i < flows; ++i)
    {
        out << (i ? "," : "") << DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx() - g_rxHalf[i];
    }
    out << "], \"bottleneck_packets_last_half\": " << g_txLastHalf;
    out << ", \"packet_rate_pps\": " << capacityBps / (ipBytes * 8.0);
    out << ", \"drops_elsewhere\": " << g_dropsElsewhere;
    out << ", \"recoveries\": " << g_recoveries << ", \"timeouts\": " << g_timeouts;
    out << ", \"drops\": " << g_drops << ", \"marks\": " << g_marks << ", \"alpha_mean_flows\": [";
    for (uint32_t i = 0; i < flows && law == "dctcp"; ++i)
    {
        AlphaAdvance(i, g_duration);
        out << (i ? "," : "") << g_alphaArea[i] / (g_duration - g_half);
    }
    out << "], \"alpha_updates\": [";
    for (uint32_t i = 0; i < flows && law == "dctcp"; ++i)
    {
        out << (i ? "," : "") << g_alphaUpdates[i];
    }
    out << "]}";
    std::cout << out.str() << std::endl;
    if (g_trace)
    {
        std::fclose(g_trace);
    }
    Simulator::Destroy();
    return 0;
}
