# peers: the peer benchmark (samples/bench/peers/bench.js, make bench-peers) runs end to end
# at a tiny size, one run, the clients of each protocol on one Azurite (the real thing
# starts one per client process: the smoke spares 22 starts), and
# must produce its table with every case, both protocols and both clients, every
# transfer checked. No figure is asserted. Normal build only: it measures the
# release-built xio command.
if(TARGET xio-peers AND TARGET xio_cli AND NOT XIO_SANITIZE)
  add_test(NAME peers.smoke
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/smoke.sh $<TARGET_FILE:xio_cli>
                   $<TARGET_FILE:xio-peers> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/peers)
  set_tests_properties(peers.smoke PROPERTIES LABELS "peers;no-asan" TIMEOUT 1800
    SKIP_RETURN_CODE 77
    ENVIRONMENT "XIO_IMDS_ENDPOINT=http://127.0.0.1:9/metadata/identity/oauth2/token;XIO_DMI_ASSET_TAG_FILE=/nonexistent/chassis_asset_tag")
endif()
