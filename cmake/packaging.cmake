# Release packages (CPack): `cpack -G DEB` and `cpack -G TGZ` in a build tree
# (scripts/package.sh runs both on the release preset; docs/install.md says
# how to install and remove each).
# - the .deb installs the three binaries to /usr/bin and the docs to
#   /usr/share/doc/heapleak; it depends on Debian's shared libraries
#   (libboost-json1.81.0, libsimdjson14, zlib1g, libstdc++6), computed by
#   dpkg-shlibdeps, so security updates of those reach heapleak too;
# - the .tar.gz is relocatable: bin/, share/doc/, and lib/ with the two
#   libraries a machine without Debian 12's -dev packages may lack (Boost.JSON
#   1.81 and simdjson 14), found through RPATH $ORIGIN/../lib; glibc,
#   libstdc++ (GCC 12) and zlib come from the system.
set(HEAPLEAK_BINARIES heapleak heapleakd heapleak-client)
foreach(binary ${HEAPLEAK_BINARIES})
  set_target_properties(${binary} PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
endforeach()
install(FILES README.md DESTINATION share/doc/heapleak)
install(DIRECTORY docs/ DESTINATION share/doc/heapleak/docs FILES_MATCHING PATTERN "*.md")
# The bundled libraries, each installed under its SONAME (what the loader asks for).
foreach(target Boost::json simdjson::simdjson)
  set(library "")
  foreach(property IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_RELWITHDEBINFO IMPORTED_LOCATION_NOCONFIG IMPORTED_LOCATION)
    get_target_property(location ${target} ${property})
    if(location AND NOT library)
      set(library ${location})
    endif()
  endforeach()
  if(NOT library)
    message(FATAL_ERROR "packaging: no library file for ${target}")
  endif()
  get_filename_component(library ${library} REALPATH)
  execute_process(COMMAND objdump -p ${library} OUTPUT_VARIABLE dynamic RESULT_VARIABLE failed)
  string(REGEX MATCH "SONAME +([^ \n]+)" soname_line "${dynamic}")
  if(failed OR NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "packaging: no SONAME in ${library}")
  endif()
  install(FILES ${library} DESTINATION lib RENAME ${CMAKE_MATCH_1} COMPONENT bundled_libraries)
endforeach()

set(CPACK_PACKAGE_NAME heapleak)
set(CPACK_PACKAGE_VENDOR "heapleak")
set(CPACK_PACKAGE_CONTACT "heapleak developers <heapleak@users.noreply.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "find why a Ruby process leaks memory, from ObjectSpace.dump_all heap dumps")
set(CPACK_PACKAGE_DESCRIPTION
    "heapleak diffs three heap dumps of a Ruby process and names what leaks, who holds it and how\n"
    "Ruby reaches it: a one-shot CLI (heapleak), a resident JSON-RPC daemon (heapleakd) and its\n"
    "client (heapleak-client).")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "graphviz")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://heapleak.invalid/")
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/cpack_per_generator.cmake)
include(CPack)
