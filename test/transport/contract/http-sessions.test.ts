import { describeContract } from "./contract.case.js";
import { streamableHttpSessions } from "./transports.js";

describeContract(streamableHttpSessions);
