import { describeContract } from "./contract.case.js";
import { streamableHttpStateless } from "./transports.js";

describeContract(streamableHttpStateless);
