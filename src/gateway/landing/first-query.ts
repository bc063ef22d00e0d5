// The operation an explorer opens with: a first look at the demo's devices.
export const FIRST_QUERY = `query FirstLook {
  protectionDevices(first: 5) {
    totalCount
    nodes { id deviceId type endpoint services organization { name } }
  }
}
`;
